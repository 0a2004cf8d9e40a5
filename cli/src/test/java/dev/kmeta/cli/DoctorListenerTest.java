package dev.kmeta.cli;

import dev.kmeta.cli.CliTest.Run;
import dev.kmeta.testkit.KafkaClusterExtension;
import dev.kmeta.testkit.LogCapture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static dev.kmeta.cli.CliTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Security settings against a real PLAINTEXT listener: doctor names the mismatch - SASL or TLS expected but the
 * listener speaks PLAINTEXT - instead of a wrong password (SASL) or connections that keep dropping (TLS), at once;
 * lookup's one line says the same; and, run as a user runs them (a child JVM), neither mixes
 * kafka-clients' or kmeta's log lines into its output unless --verbose asks for them.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class DoctorListenerTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(1);

    private static final String SASL = "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"
            + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" "
            + "password=\"s3cret\";\n";

    @TempDir
    Path dir;

    private String config(String text) throws IOException {
        return Files.writeString(Files.createTempFile(dir, "client", ".properties"), text).toString();
    }

    private static String line(Run r, String start) {
        return r.outLines().stream().filter(l -> l.startsWith(start)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting '" + start + "': " + r));
    }

    @Test
    void saslSettingsAgainstAPlaintextListenerAreNamedAsSuchNotAsAWrongPassword() throws IOException {
        String bootstrap = KAFKA.bootstrapServers();
        Run r;
        // the doctor's probe decides; on a loaded machine its kmeta instance may also meet the listener first and log
        // kmeta's ERROR and kafka-clients' (what the lookup test below asserts): kept out of the build's log
        try (LogCapture log = LogCapture.at("error", "dev.kmeta")) {
            r = run("doctor", "--bootstrap-server", bootstrap, "--command-config", config(SASL), "--topic", "t");
        }
        assertEquals(KmetaCli.EXIT_PROBLEM, r.exitCode(), r.toString());
        String fail = line(r, "FAIL  TLS/SASL handshake (SASL_PLAINTEXT): ");
        assertTrue(fail.contains("SASL expected but the listener speaks PLAINTEXT: " + bootstrap + " (it answered a "
                + "clear-text SASL handshake with ILLEGAL_SASL_STATE and no mechanisms: a PLAINTEXT listener); the "
                + "user and password were never checked"), fail);
        List<String> lines = r.outLines();
        assertTrue(lines.get(lines.indexOf(fail) + 1).startsWith("      fix: give the port of the brokers' SASL "
                + "listener"), r.toString());
        line(r, "SKIP  metadata response: the handshake failed");
        line(r, "SKIP  topic t exists: the handshake failed");
        assertFalse(r.out().contains("check sasl.mechanism and the user and password"), r.toString());
        assertFalse(r.out().contains("s3cret"), r.toString());
    }

    @Test
    void tlsSettingsAgainstAPlaintextListenerAreNamedAtOnce() throws IOException {
        long startNs = System.nanoTime();
        Run r = run("doctor", "--bootstrap-server", KAFKA.bootstrapServers(), "--command-config",
                config("security.protocol=SSL\n"), "--timeout", "60s");
        long tookMs = (System.nanoTime() - startNs) / 1_000_000;
        assertEquals(KmetaCli.EXIT_PROBLEM, r.exitCode(), r.toString());
        assertTrue(line(r, "FAIL  TLS/SASL handshake (SSL): ").contains("TLS expected but the listener speaks "
                + "PLAINTEXT: " + KAFKA.bootstrapServers()), r.toString());
        assertFalse(r.out().contains("BOOTSTRAP_UNREACHABLE"), "TCP connected: nothing is unreachable: " + r);
        assertTrue(tookMs < 30_000, "decided by the probe, not after the 60 s timeout: " + tookMs + " ms");
    }

    @Test
    void lookupSaysSaslOrTlsExpectedButThePortSpeaksPlaintextInOneLine() throws IOException {
        String bootstrap = KAFKA.bootstrapServers();
        Run sasl;
        try (LogCapture log = LogCapture.at("error", "dev.kmeta")) { // expected: kmeta's ERROR, kafka-clients' too
            sasl = run("lookup", "--bootstrap-server", bootstrap, "--command-config", config(SASL), "--timeout", "60s",
                    "t");
            assertTrue(log.text().contains("ERROR dev.kmeta.metadata.internal.MetadataManager - [kmeta-lookup] "
                    + "metadata unavailable: org.apache.kafka.common.errors.IllegalSaslStateException: the listener "
                    + "does not speak SASL"), log.text());
        }
        assertEquals(KmetaCli.EXIT_PROBLEM, sasl.exitCode(), sasl.toString());
        assertEquals(List.of("kmeta lookup: SASL expected but the listener speaks PLAINTEXT: " + bootstrap + " (it "
                + "answered a clear-text SASL handshake with ILLEGAL_SASL_STATE and no mechanisms: a PLAINTEXT "
                + "listener); the user and password were never checked. Fix: give the port of the brokers' SASL "
                + "listener (listeners=SASL_PLAINTEXT://...), or, if this PLAINTEXT listener is the one to use, remove "
                + "security.protocol and the sasl.* settings from --command-config"), sasl.errLines(), sasl.toString());
        assertEquals("", sasl.out(), sasl.toString());

        long startNs = System.nanoTime();
        Run tls = run("lookup", "--bootstrap-server", bootstrap, "--command-config", config("security.protocol=SSL\n"),
                "--timeout", "60s", "t");
        long tookMs = (System.nanoTime() - startNs) / 1_000_000;
        assertEquals(KmetaCli.EXIT_PROBLEM, tls.exitCode(), tls.toString());
        assertEquals(1, tls.errLines().size(), tls.toString());
        assertTrue(tls.err().startsWith("kmeta lookup: TLS expected but the listener speaks PLAINTEXT: " + bootstrap),
                tls.toString());
        assertFalse(tls.err().contains("unreachable") || tls.err().contains("refused"), "TCP connects: " + tls);
        assertTrue(tookMs < 30_000, "not the 60 s timeout: " + tookMs + " ms");
    }

    /**
     * As a user runs them: kafka-clients' "ERROR ... NetworkClient ... failed authentication" stays out. The three
     * child JVMs are independent: they run at once, each checked on its own output.
     */
    @Test
    void noLogLineIsMixedIntoTheOutputUnlessVerbose() throws IOException {
        String file = config(SASL);
        Duration run = Duration.ofSeconds(60);
        CompletableFuture<CliProcess.Result> lookupRun = runAsync(run, "lookup", "--bootstrap-server",
                KAFKA.bootstrapServers(), "--command-config", file, "t");
        CompletableFuture<CliProcess.Result> doctorRun = runAsync(run, "doctor", "--bootstrap-server",
                KAFKA.bootstrapServers(), "--command-config", file);
        CompletableFuture<CliProcess.Result> verboseRun = runAsync(run, "lookup", "--verbose", "--bootstrap-server",
                KAFKA.bootstrapServers(), "--command-config", file, "t");

        CliProcess.Result lookup = lookupRun.join();
        assertEquals(KmetaCli.EXIT_PROBLEM, lookup.exitCode(), lookup.toString());
        assertEquals(1, lookup.errLines().size(), "one line, no log lines: " + lookup);
        assertTrue(lookup.errLines().get(0).contains("SASL expected but the listener speaks PLAINTEXT"),
                lookup.toString());
        assertTrue(lookup.out().isEmpty(), lookup.toString());

        CliProcess.Result doctor = doctorRun.join();
        assertEquals(KmetaCli.EXIT_PROBLEM, doctor.exitCode(), doctor.toString());
        assertEquals(List.of(), doctor.errLines(), doctor.toString());
        for (String l : doctor.out()) {
            assertTrue(l.matches("^(kmeta doctor: |OK    |FAIL  |SKIP  |      fix: |\\d+ problem\\(s\\) found).*"),
                    "only the checklist: " + l + "\n" + doctor);
        }

        CliProcess.Result verbose = verboseRun.join();
        assertEquals(KmetaCli.EXIT_PROBLEM, verbose.exitCode(), verbose.toString());
        assertTrue(verbose.err().stream().anyMatch(l -> l.contains("ERROR org.apache.kafka.clients.NetworkClient")),
                "--verbose shows kafka-clients' logs: " + verbose);
        assertTrue(verbose.err().stream().anyMatch(l -> l.contains("INFO dev.kmeta")), verbose.toString());
    }

    /** {@link CliProcess#run} on a thread of its own (a daemon: the test's timeout ends the test, not the JVM). */
    private static CompletableFuture<CliProcess.Result> runAsync(Duration timeout, String... args) {
        return CompletableFuture.supplyAsync(() -> CliProcess.run(timeout, args), r -> {
            Thread t = new Thread(r, "doctor-listener-child-" + args[0]);
            t.setDaemon(true);
            t.start();
        });
    }
}
