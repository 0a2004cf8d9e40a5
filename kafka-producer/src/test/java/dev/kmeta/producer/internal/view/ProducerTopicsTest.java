package dev.kmeta.producer.internal.view;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One producer's topics: what {@code add} says (a send's first use, a moved use stamp, neither - the caller subscribes
 * and notes first uses on it), and the entry a send reads from the snapshot through them, looked up once per snapshot
 * version.
 */
class ProducerTopicsTest {
    private final ProducerTopics topics = new ProducerTopics(60_000, () -> 0L);

    private static Cluster withTopic(Cluster before, String name, int partitions) {
        List<PartitionMetadata> ps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            ps.add(PartitionMetadata.of(name, p, 0, 1));
        }
        return before.apply(ClusterDelta.builder().clusterId("c").nodes(List.of(new Node(0, "127.0.0.1", 9092)))
                .putTopic(TopicMetadata.of(name, ps)).build());
    }

    @Test
    void addSaysWhetherTheTopicJoinedOrItsUseStampMoved() {
        assertEquals(ProducerViews.Added.JOINED, topics.add("t", 10_000));
        assertEquals(ProducerViews.Added.FRESH, topics.add("t", 10_999), "within a second: nothing written");
        assertEquals(ProducerViews.Added.STAMPED, topics.add("t", 11_000));
        assertEquals(ProducerViews.Added.FRESH, topics.add("t", 11_500));
        topics.expireIdle(11_000 + 60_000 + ProducerTopics.STAMP_GRANULARITY_MS + 1);
        assertEquals(ProducerViews.Added.JOINED, topics.add("t", 80_000), "expired as idle: a first use again");
    }

    @Test
    void aTopicInUseIsLookedUpOncePerSnapshotVersionAndAgainOnTheNext() {
        Cluster first = withTopic(Cluster.empty(), "t", 3);
        assertNull(topics.look("t", first), "a topic not in use: no look");
        topics.add("t", 0);
        assertSame(first.topic("t"), topics.look("t", first).entry());
        assertSame(topics.look("t", first), topics.look("t", first), "the same version: the kept look");

        Cluster grown = withTopic(first, "t", 5);
        assertEquals(5, topics.look("t", grown).entry().partitionCount(), "a new version: looked up again");
        assertSame(grown.topic("t"), topics.look("t", grown).entry());
        assertEquals(3, topics.look("t", first).entry().partitionCount(), "each version its own entry");

        Cluster gone = grown.apply(ClusterDelta.builder().clusterId("c").removeTopic("t").build());
        assertNull(topics.look("t", gone).entry(), "absent in the new version");
    }

    @Test
    void aLookKeepsWhatASendLearnedForItsVersionAndIsDroppedWhenTheSnapshotMovesOn() {
        Cluster first = withTopic(Cluster.empty(), "t", 3);
        assertNull(topics.look("t", first), "a topic not in use has no look");
        topics.add("t", 0);
        TopicLook look = topics.look("t", first);
        assertSame(first.topic("t"), look.entry());
        assertFalse(look.isProven());
        look.proven();
        assertSame(look, topics.look("t", first), "one look per version: the next send reads what this one learned");
        assertTrue(topics.look("t", first).isProven());

        topics.dropLooksNotAt(first.version());
        assertSame(look, topics.look("t", first), "the current version's look stays");

        Cluster grown = withTopic(first, "t", 5);
        topics.dropLooksNotAt(grown.version()); // the network thread saw the snapshot move on
        TopicLook again = topics.look("t", first);
        assertNotSame(look, again, "the older version's look was dropped: it keeps no entry or view reachable");
        assertFalse(again.isProven());
        assertSame(grown.topic("t"), topics.look("t", grown).entry());
    }
}
