package dev.kmeta.sender;

import dev.kmeta.testkit.LogCapture;
import dev.kmeta.metadata.ConnectionEvidence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 28: a bootstrap name that does not resolve is an expected network failure - evidence and a diagnosis - so
 * the line kafka-clients' NetworkClient logs for each of kmeta's attempts carries the message, not a stack trace.
 * Through kmeta's DNS hook (no lookup leaves the machine).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UnresolvableBootstrapLogTest {
    @Test
    void eachAttemptIsOneLineWithoutAStackTrace() throws Exception {
        String text;
        try (LogCapture logs = LogCapture.at("warn", "org.apache.kafka.clients.NetworkClient");
             KafkaMetadata m = KafkaMetadata.builder(Map.of("bootstrap.servers", "kafka.unresolvable.test:9092",
                             "client.id", "unresolvable-log", "reconnect.backoff.ms", 20,
                             "reconnect.backoff.max.ms", 50))
                     .hostResolver(host -> {
                         throw new UnknownHostException(host + ": no such name (test hook)");
                     }).build()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> attempts(m) >= 3);
            text = logs.text();
        }
        long lines = text.lines().filter(l -> l.contains("[kmeta unresolvable-log] Error connecting to node")).count();
        long stack = text.lines().filter(l -> l.startsWith("\tat ")).count();
        assertTrue(lines >= 2, "kmeta's attempts are logged: " + text);
        assertTrue(text.contains("java.net.UnknownHostException: kafka.unresolvable.test: no such name (test hook)"),
                text);
        assertEquals(0, stack, "no stack-trace line: " + text);
    }

    private static int attempts(KafkaMetadata m) {
        int n = 0;
        for (ConnectionEvidence.Record r : m.evidence().records()) {
            n += r.failures();
        }
        return n;
    }
}
