package dev.kmeta.examples;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The producer's own keys: Kafka's defaults, and a bad value named by its key. */
class ProducerSettingsTest {
    @Test
    void defaultsAreKafkasAndAcksDefaultsToAll() {
        ProducerSettings s = ProducerSettings.from(Map.of());
        assertEquals(-1, s.acks());
        assertEquals(120_000, s.deliveryTimeoutMs());
        assertEquals(16_384, s.batchSizeBytes());
        assertEquals(5, s.maxInFlightPerBroker());
        assertEquals(10_000, s.bufferRecords());
    }

    @Test
    void valuesMayBeStringsOrNumbers() {
        ProducerSettings s = ProducerSettings.from(Map.of("acks", "1", "delivery.timeout.ms", 5_000L,
                "batch.size", " 100 ", ProducerSettings.BUFFER_RECORDS, "3"));
        assertEquals(1, s.acks());
        assertEquals(5_000, s.deliveryTimeoutMs());
        assertEquals(100, s.batchSizeBytes());
        assertEquals(3, s.bufferRecords());
        assertEquals(0, ProducerSettings.from(Map.of("acks", 0)).acks());
        assertEquals(-1, ProducerSettings.from(Map.of("acks", "-1")).acks());
    }

    @Test
    void aBadValueNamesItsKey() {
        assertNamesKey("acks", Map.of("acks", "2"));
        assertNamesKey("delivery.timeout.ms", Map.of("delivery.timeout.ms", "soon"));
        assertNamesKey("delivery.timeout.ms", Map.of("delivery.timeout.ms", 0));
        assertNamesKey("batch.size", Map.of("batch.size", 3_000_000_000L));
        assertNamesKey(ProducerSettings.BUFFER_RECORDS, Map.of(ProducerSettings.BUFFER_RECORDS, -1));
    }

    private static void assertNamesKey(String key, Map<String, ?> props) {
        ConfigException e = assertThrows(ConfigException.class, () -> ProducerSettings.from(props));
        assertTrue(e.getMessage().contains(key), e.getMessage());
    }
}
