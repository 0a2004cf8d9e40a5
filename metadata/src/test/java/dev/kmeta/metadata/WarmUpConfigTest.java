package dev.kmeta.metadata;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The warm-up and staleness keys: {@code kmeta.metadata.max.staleness.ms} (off by default, a whole number >= 0) and
 * {@code kmeta.metadata.prefetch.topics} (empty by default; legal topic names, at most
 * {@code kmeta.metadata.max.topics}); a bad value fails naming the key.
 */
class WarmUpConfigTest {
    @Test
    void offAndEmptyByDefault() {
        MetadataConfig c = MetadataConfig.from(Map.of());
        assertEquals(0, c.maxStalenessMs());
        assertEquals(List.of(), c.prefetchTopics());
        assertTrue(c.toString().contains("kmeta.metadata.max.staleness.ms=0"), c.toString());
        assertTrue(c.toString().contains("kmeta.metadata.prefetch.topics=[]"), c.toString());
    }

    @Test
    void theStalenessTargetIsAWholeNumberOfMsAtLeastZero() {
        assertEquals(30_000, MetadataConfig.from(Map.of("kmeta.metadata.max.staleness.ms", "30000")).maxStalenessMs());
        ConfigException e = assertThrows(ConfigException.class,
                () -> MetadataConfig.from(Map.of("kmeta.metadata.max.staleness.ms", -1)));
        assertEquals("kmeta.metadata.max.staleness.ms", e.key());
        assertEquals("Invalid value -1 for configuration kmeta.metadata.max.staleness.ms: must be a whole number >= 0",
                e.getMessage());
        assertThrows(ConfigException.class, () -> MetadataConfig.from(Map.of("kmeta.metadata.max.staleness.ms", "5s")));
    }

    @Test
    void prefetchTopicsAreLegalNamesTrimmedAndDistinct() {
        MetadataConfig c = MetadataConfig.from(Map.of("kmeta.metadata.prefetch.topics", " orders, payments,,orders "));
        assertEquals(List.of("orders", "payments"), c.prefetchTopics());
        assertEquals(List.of("a.b", "c_d-1"), MetadataConfig.from(Map.of("kmeta.metadata.prefetch.topics",
                List.of("a.b", "c_d-1"))).prefetchTopics());

        ConfigException bad = assertThrows(ConfigException.class,
                () -> MetadataConfig.from(Map.of("kmeta.metadata.prefetch.topics", "orders,no spaces")));
        assertEquals("kmeta.metadata.prefetch.topics", bad.key());
        assertTrue(bad.getMessage().contains("no spaces") && bad.getMessage().contains("legal topic name"),
                bad.getMessage());
        assertThrows(ConfigException.class, () -> MetadataConfig.from(Map.of("kmeta.metadata.prefetch.topics", "..")));
        assertThrows(ConfigException.class,
                () -> MetadataConfig.from(Map.of("kmeta.metadata.prefetch.topics", "x".repeat(250))));
    }

    @Test
    void noMorePrefetchTopicsThanTheCap() {
        ConfigException e = assertThrows(ConfigException.class, () -> MetadataConfig.from(Map.of(
                "kmeta.metadata.max.topics", 2, "kmeta.metadata.prefetch.topics", "a,b,c")));
        assertEquals("kmeta.metadata.prefetch.topics", e.key());
        assertTrue(e.getMessage().contains("at most kmeta.metadata.max.topics (2)"), e.getMessage());
    }
}
