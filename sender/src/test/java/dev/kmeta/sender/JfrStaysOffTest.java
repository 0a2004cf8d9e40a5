package dev.kmeta.sender;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM that records nothing pays nothing for kmeta's JFR events: a first kmeta instance, its first Metadata request
 * and a first wait that times out load none of JFR's engine (before, a static call on an event class initialized it
 * and brought ~110 JFR classes in, a few hundred ms of a fresh application's start-up: issue 41's fresh-JVM
 * Streams start-up). Run in a child JVM with {@code -verbose:class}, as nothing in this test JVM may have started JFR.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JfrStaysOffTest {
    /** The child's program: a first instance against an address nothing listens on, one wait that times out. */
    public static final class FirstUse {
        public static void main(String[] args) {
            try (KafkaMetadata m = KafkaMetadata.builder(Map.of("bootstrap.servers", "127.0.0.1:1",
                    "client.id", "jfr-stays-off", "reconnect.backoff.ms", 10)).build()) {
                try {
                    m.awaitTopic("t", 0, m.newDeadline(Duration.ofMillis(300)));
                } catch (RuntimeException expected) {
                    System.out.println("first-use: " + expected.getClass().getSimpleName());
                }
            }
        }
    }

    @Test
    void aFirstInstanceRequestAndTimeoutLoadNoneOfJfrsEngine() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-verbose:class", "-Xshare:auto",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=error", "-cp", System.getProperty("java.class.path"),
                FirstUse.class.getName()).redirectErrorStream(true).start();
        List<String> lines;
        try (var in = p.getInputStream()) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().collect(Collectors.toList());
        }
        assertTrue(p.waitFor(50, TimeUnit.SECONDS), "the child ended");
        assertEquals(0, p.exitValue(), String.join("\n", tail(lines)));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("first-use: ")), "the wait ran: " + tail(lines));
        assertTrue(lines.stream().anyMatch(l -> l.contains("dev.kmeta.sender.internal.MetadataRequests ")),
                "the first request was made");
        List<String> engine = lines.stream().filter(l -> l.contains(" jdk.jfr.internal.")
                && !l.contains("jdk.jfr.internal.dcmd.") && !l.contains("jdk.jfr.internal.management."))
                .collect(Collectors.toList());
        assertEquals(List.of(), engine, "JFR's engine loaded without a recording");
    }

    private static List<String> tail(List<String> lines) {
        return lines.subList(Math.max(0, lines.size() - 20), lines.size());
    }
}
