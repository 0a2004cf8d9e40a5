package dev.kmeta.cluster;

import static dev.kmeta.cluster.Fixtures.leaders;
import static dev.kmeta.cluster.Fixtures.node;
import static dev.kmeta.cluster.Fixtures.nodes;
import static dev.kmeta.cluster.Fixtures.topic;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClusterDeltaTest {
    private final Cluster base = Fixtures.cluster(nodes(0, 1), topic("t", 0, 1));

    @Test
    void anEmptyDeltaSetsNothing() {
        ClusterDelta d = ClusterDelta.builder().build();
        assertTrue(d.changesNoTopic());
        assertFalse(d.setsClusterId());
        assertFalse(d.setsController());
        assertNull(d.nodes());
        assertTrue(d.topics().isEmpty());
        assertEquals("ClusterDelta(0 topic changes)", d.toString());
    }

    @Test
    void putThenRemoveRemoves() {
        ClusterDelta d = ClusterDelta.builder().putTopic(topic("t", 1, 1)).removeTopic("t").build();
        assertTrue(d.topics().isEmpty());
        assertFalse(d.changesNoTopic());
        assertNull(base.apply(d).topic("t"));
    }

    @Test
    void removeThenPutPuts() {
        TopicMetadata t = topic("t", 1, 0);
        ClusterDelta d = ClusterDelta.builder().removeTopic("t").putTopic(t).build();
        assertEquals(Map.of("t", t), d.topics());
        assertArrayEquals(new int[] {1, 0}, leaders(base.apply(d).topic("t")));
    }

    @Test
    void theLastPutOfANameWins() {
        ClusterDelta d = ClusterDelta.builder().putTopic(topic("t", 1)).putTopic(topic("t", 0, 0, 0)).build();
        assertArrayEquals(new int[] {0, 0, 0}, leaders(base.apply(d).topic("t")));
        assertEquals(1, d.topics().size());
    }

    @Test
    void marksFollowTheSameRule() {
        Cluster markedThenPut = base.apply(ClusterDelta.builder().unauthorizedTopic("t").putTopic(topic("t", 1))
                .build());
        assertTrue(markedThenPut.unauthorizedTopics().isEmpty());
        assertArrayEquals(new int[] {1}, leaders(markedThenPut.topic("t")));
        Cluster putThenInvalid = base.apply(ClusterDelta.builder().putTopic(topic("t", 1)).invalidTopic("t")
                .build());
        assertEquals(Set.of("t"), putThenInvalid.invalidTopics());
        assertNull(putThenInvalid.topic("t"));
        Cluster invalidThenUnauthorized = base.apply(ClusterDelta.builder().invalidTopic("t")
                .unauthorizedTopic("t").build());
        assertEquals(Set.of("t"), invalidThenUnauthorized.unauthorizedTopics());
        assertTrue(invalidThenUnauthorized.invalidTopics().isEmpty());
    }

    @Test
    void changedNamesListsEveryNameOnceInFirstMentionOrder() {
        ClusterDelta.Builder b = ClusterDelta.builder().putTopic(topic("b")).removeTopic("a").invalidTopic("c")
                .unauthorizedTopic("b");
        assertEquals(List.of("b", "a", "c"), new ArrayList<>(b.changedNames()));
        assertThrows(UnsupportedOperationException.class, () -> b.changedNames().add("x"));
    }

    @Test
    void aBuiltDeltaDoesNotSeeLaterBuilderChanges() {
        List<Node> source = new ArrayList<>(nodes(0, 1));
        ClusterDelta.Builder b = ClusterDelta.builder().nodes(source).putTopic(topic("x", 0));
        ClusterDelta first = b.build();
        source.add(node(2));
        b.removeTopic("x").putTopic(topic("y", 0)).clusterId("later");
        ClusterDelta second = b.build();
        assertEquals(Set.of("x"), first.topics().keySet());
        assertEquals(nodes(0, 1), first.nodes());
        assertFalse(first.setsClusterId());
        assertEquals(Set.of("y"), second.topics().keySet());
        assertEquals("later", second.clusterId());
        assertThrows(UnsupportedOperationException.class, () -> first.nodes().add(node(3)));
        assertEquals(2, Cluster.empty().apply(first).nodes().size());
    }

    @Test
    void controllerAndClusterIdAreSetExplicitly() {
        ClusterDelta d = ClusterDelta.builder().controllerId(-3).clusterId(null).build();
        assertTrue(d.setsController());
        assertEquals(-1, d.controllerId());
        assertTrue(d.setsClusterId());
        assertNull(d.clusterId());
        assertEquals(4, ClusterDelta.builder().controllerId(4).build().controllerId());
    }

    @Test
    void topicsIsACopyOfThePuts() {
        TopicMetadata t = topic("t", 0);
        ClusterDelta d = ClusterDelta.builder().putTopic(t).removeTopic("gone").build();
        Map<String, TopicMetadata> topics = d.topics();
        assertEquals(Set.of("t"), topics.keySet());
        assertSame(t, topics.get("t"));
        topics.clear();
        assertEquals(1, d.topics().size());
    }

    @Test
    void nullNamesAreRejected() {
        ClusterDelta.Builder b = ClusterDelta.builder();
        assertThrows(NullPointerException.class, () -> b.removeTopic(null));
        assertThrows(NullPointerException.class, () -> b.unauthorizedTopic(null));
        assertThrows(NullPointerException.class, () -> b.invalidTopic(null));
        assertThrows(NullPointerException.class, () -> b.putTopic(null));
    }

    @Test
    void toStringCountsChangesAndNodes() {
        assertEquals("ClusterDelta(2 topic changes, 2 nodes, clusterId=c)", ClusterDelta.builder()
                .putTopic(topic("a")).removeTopic("b").nodes(nodes(0, 1)).clusterId("c").build().toString());
    }
}
