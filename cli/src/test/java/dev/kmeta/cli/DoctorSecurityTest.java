package dev.kmeta.cli;

import dev.kmeta.cli.CliTest.Run;
import dev.kmeta.testkit.ClientSecurity;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import dev.kmeta.testkit.LogCapture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static dev.kmeta.cli.CliTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kmeta doctor} with security settings from {@code --command-config} against a real SASL_PLAINTEXT (SCRAM)
 * listener: the right password passes the handshake check, a wrong one fails it with a fix, skips what needs
 * metadata, and the password is never printed; settings that do not fit the listener (none, or TLS) are named.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DoctorSecurityTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder()
            .clientSecurity(ClientSecurity.saslPlaintext()));

    private static final String USER = "doctor";
    private static final String PASSWORD = "right-" + UUID.randomUUID();
    private static final String TOPIC = "secured";

    @TempDir
    Path dir;

    @BeforeAll
    static void userAndTopic() {
        KAFKA.cluster().createScramUser(USER, PASSWORD);
        KAFKA.cluster().createTopic(TOPIC, 1, 1);
    }

    private Path commandConfig(String password) throws IOException {
        Properties props = new Properties();
        for (Map.Entry<String, Object> e : KAFKA.cluster().clientProperties(USER, password).entrySet()) {
            props.setProperty(e.getKey(), String.valueOf(e.getValue()));
        }
        Path file = dir.resolve("client-" + UUID.randomUUID() + ".properties");
        try (var writer = Files.newBufferedWriter(file)) {
            props.store(writer, null);
        }
        return file;
    }

    @Test
    void rightPasswordPassesTheHandshake() throws IOException {
        Run r = run("doctor", "--bootstrap-server", KAFKA.bootstrapServers(), "--command-config",
                commandConfig(PASSWORD).toString(), "--topic", TOPIC);
        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.out().contains("OK    TLS/SASL handshake (SASL_PLAINTEXT): with " + KAFKA.bootstrapServers()),
                r.toString());
        assertTrue(r.out().contains("OK    topic secured exists"), r.toString());
        assertFalse(r.out().contains(PASSWORD) || r.err().contains(PASSWORD), "never the password: " + r);
    }

    /** No security settings against this SASL listener: said at once, not after the timeout as "no answer". */
    @Test
    void noSecuritySettingsAgainstASaslListenerAreNamed() {
        Run r = run("doctor", "--bootstrap-server", KAFKA.bootstrapServers(), "--timeout", "60s");
        assertEquals(KmetaCli.EXIT_PROBLEM, r.exitCode(), r.toString());
        assertTrue(r.out().contains("FAIL  metadata response: the listener expects SASL: " + KAFKA.bootstrapServers()
                + " (it answered a clear-text SASL handshake with mechanisms ["), r.toString());
        assertTrue(r.out().contains("fix: set security.protocol=SASL_PLAINTEXT, sasl.mechanism (one of "),
                r.toString());
        assertTrue(r.out().contains("SKIP  cluster id: the listener expects SASL"), r.toString());
    }

    @Test
    void lookupWithoutSecuritySettingsSaysTheListenerExpectsSasl() {
        Run r = run("lookup", "--bootstrap-server", KAFKA.bootstrapServers(), "--timeout", "3s", TOPIC);
        assertEquals(KmetaCli.EXIT_PROBLEM, r.exitCode(), r.toString());
        assertEquals(1, r.errLines().size(), r.toString());
        assertTrue(r.err().startsWith("kmeta lookup: the listener expects SASL: " + KAFKA.bootstrapServers()),
                r.toString());
        assertTrue(r.err().contains("Fix: set security.protocol=SASL_PLAINTEXT"), r.toString());
    }

    @Test
    void tlsSettingsAgainstThisSaslPlaintextListenerAreNamed() throws IOException {
        Path file = dir.resolve("tls.properties");
        Files.writeString(file, "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config="
                + "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + USER
                + "\" password=\"" + PASSWORD + "\";\n");
        Run r = run("doctor", "--bootstrap-server", KAFKA.bootstrapServers(), "--command-config", file.toString());
        assertEquals(KmetaCli.EXIT_PROBLEM, r.exitCode(), r.toString());
        assertTrue(r.out().contains("FAIL  TLS/SASL handshake (SASL_SSL): TLS expected but the listener speaks "
                + "SASL_PLAINTEXT: " + KAFKA.bootstrapServers()), r.toString());
        assertTrue(r.out().contains("set security.protocol=SASL_PLAINTEXT in --command-config"), r.toString());
        assertFalse(r.out().contains(PASSWORD), r.toString());
    }

    @Test
    void wrongPasswordFailsTheHandshakeWithAFix() throws IOException {
        String wrong = "wrong-" + UUID.randomUUID();
        Run r;
        try (LogCapture log = LogCapture.at("error", "dev.kmeta")) { // expected: kmeta's ERROR, kafka-clients' too
            r = run("doctor", "--bootstrap-server", KAFKA.bootstrapServers(), "--command-config",
                    commandConfig(wrong).toString(), "--topic", TOPIC);
            assertTrue(log.text().contains("ERROR dev.kmeta.metadata.internal.MetadataManager - [kmeta-doctor] "
                    + "metadata unavailable: org.apache.kafka.common.errors.SaslAuthenticationException"), log.text());
            assertFalse(log.text().contains(wrong), "never the password: " + log.text());
        }
        assertEquals(KmetaCli.EXIT_PROBLEM, r.exitCode(), r.toString());
        assertTrue(r.out().contains("OK    TCP connect to bootstrap " + KAFKA.bootstrapServers()), r.toString());
        assertTrue(r.out().contains("FAIL  TLS/SASL handshake (SASL_PLAINTEXT): "), r.toString());
        assertTrue(r.out().contains("fix: check sasl.mechanism and the user and password in sasl.jaas.config"),
                r.toString());
        assertTrue(r.out().contains("SKIP  metadata response: the handshake failed"), r.toString());
        assertTrue(r.out().contains("SKIP  topic secured exists"), r.toString());
        assertFalse(r.out().contains(wrong) || r.err().contains(wrong), "never the password: " + r);
    }
}
