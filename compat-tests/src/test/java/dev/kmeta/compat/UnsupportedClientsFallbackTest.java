package dev.kmeta.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.testkit.KafkaClusterExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A kafka-clients the KafkaProducer route does not support (the refused 3.9.x, in a class loader of its own with
 * kmeta's compiled classes) never stops the application: {@code KmetaProducer.create} returns a stock KafkaProducer
 * made from the same properties without kmeta's {@code kmeta.*} keys, whose sends a 4.4 broker acks, logs one WARN per
 * producer naming the version and what is lost, and counts it ({@code KmetaProducer.fallbacks()}). With
 * {@code kmeta.producer.unsupported.version=fail} the creation is refused instead ({@code ClientVersionsTest}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UnsupportedClientsFallbackTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(1);
    private static final String TOPIC = "fallback";
    private static final String WARN = "A stock KafkaProducer, not on kmeta";

    @Test
    void anUnsupportedKafkaClientsGetsAStockProducerAWarningAndACount() throws Exception {
        KAFKA.cluster().createTopic(TOPIC, 1, 1);
        String version = ClientJars.refused();
        PrintStream err = System.err; // slf4j-simple writes to System.err as it is at each line
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        Map<String, Object> seen;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            seen = ClientJars.run(version, FallbackProbe.class,
                    Map.of("bootstrap.servers", KAFKA.cluster().bootstrapServers()), TOPIC);
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        err.print(log);
        assertEquals(version, seen.get("version"), String.valueOf(seen));
        assertNull(seen.get("failed"), String.valueOf(seen));
        assertEquals("org.apache.kafka.clients.producer.KafkaProducer", seen.get("producerClass"), String.valueOf(seen));
        assertEquals(false, seen.get("onKmeta"), String.valueOf(seen));
        assertEquals(20, seen.get("acked"), "the stock producer's sends, acked by the broker: " + seen);
        assertEquals(0L, seen.get("fallbacksBefore"), String.valueOf(seen));
        assertEquals(1L, seen.get("fallbacksAfterFirst"), String.valueOf(seen));
        assertEquals(2L, seen.get("fallbacksAfterSecond"), String.valueOf(seen));
        assertEquals(2L, seen.get("jmxFallbacks"), "in JMX too: " + seen);

        List<String> warnings = log.lines().filter(l -> l.contains(WARN)).collect(Collectors.toList());
        assertEquals(2, warnings.size(), "one WARN per producer: " + warnings);
        for (String w : warnings) {
            assertTrue(w.contains("WARN") && w.contains("kafka-clients " + version) && w.contains("shared metadata")
                    && w.contains("diagnosis") && w.contains("kmeta.producer.unsupported.version=fail"), w);
        }
        String given = String.valueOf(seen.get("givenKeys"));
        assertTrue(given.contains("bootstrap.servers") && given.contains("acks") && !given.contains("kmeta."),
                "the stock producer gets the properties without kmeta's keys: " + given);
    }
}
