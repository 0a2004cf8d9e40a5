package dev.kmeta.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every error path of bad input, run as a user runs kmeta (a child JVM, {@link CliProcess}): one line on stderr, the
 * line docs/cli.md shows, nothing on stdout, exit 2 - no kafka-clients ERROR log and no stack trace before it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ErrorPathsTest {
    private static final Duration RUN = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private Path config(String text) throws IOException {
        return Files.writeString(Files.createTempFile(dir, "client", ".properties"), text);
    }

    /** Exactly {@code line} on stderr, nothing else anywhere, exit 2. */
    private static void assertOneLineExit2(CliProcess.Result r, String line) {
        assertEquals(KmetaCli.EXIT_USAGE, r.exitCode(), r.toString());
        assertEquals(java.util.List.of(line), r.errLines(), r.toString());
        assertTrue(r.out().isEmpty(), r.toString());
    }

    @Test
    void aMissingTrustStore() throws IOException {
        Path file = config("security.protocol=SSL\nssl.truststore.location=/nonexistent\n");
        assertOneLineExit2(CliProcess.run(RUN, "lookup", "--bootstrap-server", "127.0.0.1:1", "--command-config",
                file.toString(), "orders"),
                "kmeta lookup: bad client setting: ssl.truststore.location=/nonexistent: file not found");
    }

    @Test
    void aMissingKeyStore() throws IOException {
        Path file = config("security.protocol=SSL\nssl.keystore.location=/nonexistent/client.p12\n"
                + "ssl.keystore.password=hush\n");
        assertOneLineExit2(CliProcess.run(RUN, "doctor", "--bootstrap-server", "127.0.0.1:1", "--command-config",
                file.toString()),
                "kmeta doctor: bad client setting: ssl.keystore.location=/nonexistent/client.p12: file not found");
    }

    @Test
    void aTrustStoreThatIsNoStore() throws IOException {
        Path store = Files.write(dir.resolve("trust.jks"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        Path file = config("security.protocol=SSL\nssl.truststore.location=" + store + "\n");
        assertOneLineExit2(CliProcess.run(RUN, "watch", "--bootstrap-server", "127.0.0.1:1", "--command-config",
                file.toString()),
                "kmeta watch: bad client setting: ssl.truststore.location=" + store + ": cannot load it as a JKS "
                        + "trust store: Invalid keystore format (check ssl.truststore.type and ssl.truststore.password)");
    }

    @Test
    void anUnreadableCommandConfig() {
        assertOneLineExit2(CliProcess.run(RUN, "lookup", "--bootstrap-server", "127.0.0.1:1", "--command-config",
                dir.toString(), "orders"),
                "kmeta lookup: --command-config: cannot read " + dir + ": not a regular file");
        Path missing = dir.resolve("client.propertes");
        assertOneLineExit2(CliProcess.run(RUN, "lookup", "--bootstrap-server", "127.0.0.1:1", "--command-config",
                missing.toString(), "orders"),
                "kmeta lookup: --command-config: cannot read " + missing + ": no such file");
    }

    @Test
    void aJaasConfigThatDoesNotParse() throws IOException {
        Path file = config("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config="
                + "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"s3cret\"\n");
        assertOneLineExit2(CliProcess.run(RUN, "lookup", "--bootstrap-server", "127.0.0.1:1", "--command-config",
                file.toString(), "orders"),
                "kmeta lookup: bad client setting: sasl.jaas.config: JAAS config entry not terminated by semi-colon");
    }
}
