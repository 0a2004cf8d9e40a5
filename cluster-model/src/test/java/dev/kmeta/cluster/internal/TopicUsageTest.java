package dev.kmeta.cluster.internal;

import dev.kmeta.cluster.TopicMetadata;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TopicUsage#install} is no global hook: the topic class installs its accessor, and nobody replaces it. */
class TopicUsageTest {
    @Test
    void nobodyButTopicMetadataInstallsTheAccessorAndOnlyOnce() {
        TopicMetadata topic = TopicMetadata.of("t", java.util.List.of()); // initializes TopicMetadata, which installs its accessor
        TopicUsage.markUsed(topic, 5);
        assertThrows(IllegalStateException.class, () -> TopicUsage.install(new TopicUsage.Access() {
            @Override
            public long usedNs(TopicMetadata t) {
                return 0;
            }

            @Override
            public void markUsed(TopicMetadata t, long nowNs) {
            }
        }));
        assertTrue(TopicUsage.usedWithin(topic, 5, 0), "the topic's own stamp still answers");
    }
}
