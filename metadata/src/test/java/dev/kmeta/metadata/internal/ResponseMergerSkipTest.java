package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ResponseMerger}'s skip of the topics an answer reuses from the snapshot it was translated against
 * ({@link RefreshResponse#basedOn}): merging such an answer must give exactly what merging the same topics without
 * the hint gives - the same delta, changed topics and counters, answer after answer (the rewind counters are state).
 * Each case below is one answer of four topics where the translator would reuse every topic but the one it changes.
 */
class ResponseMergerSkipTest {
    private static final List<Node> NODES = List.of(new Node(0, "h", 9092), new Node(1, "h", 9093),
            new Node(2, "h", 9094), new Node(3, "h", 9095));
    private static final List<String> NAMES = List.of("a", "b", "c", "d");
    private static final Set<String> SUBSCRIBED = Set.of("a", "b", "c", "d", "new");

    private static PartitionMetadata partition(String topic, int index, int leader, int epoch) {
        int[] replicas = {leader, (leader + 1) % 4, (leader + 2) % 4};
        return new PartitionMetadata(topic, index, leader, epoch, replicas, replicas, null, PartitionMetadata.NONE);
    }

    private static TopicMetadata topic(String name, int epoch) {
        List<PartitionMetadata> partitions = new ArrayList<>();
        for (int p = 0; p < 5; p++) {
            partitions.add(partition(name, p, (p + name.charAt(0)) % 4, epoch));
        }
        return TopicMetadata.of(name, new UUID(name.charAt(0), 1), false, PartitionMetadata.NONE, partitions);
    }

    private static Cluster start() {
        ClusterDelta.Builder b = ClusterDelta.builder().clusterId("c1").controllerId(0).nodes(NODES);
        for (String name : NAMES) {
            b.putTopic(topic(name, 5));
        }
        return Cluster.empty().apply(b.build());
    }

    /** The topic with partition {@code p} replaced by what {@code change} makes of it. */
    private static TopicMetadata withPartition(TopicMetadata t, int p, UnaryOperator<PartitionMetadata> change) {
        List<PartitionMetadata> partitions = new ArrayList<>(t.partitions());
        partitions.set(p, change.apply(partitions.get(p)));
        return TopicMetadata.of(t.name(), t.topicId(), t.isInternal(), t.errorCode(), partitions);
    }

    private static PartitionMetadata copy(PartitionMetadata o, int leader, int epoch, int[] replicas, int[] isr,
                                          int[] offline) {
        return new PartitionMetadata(o.topic(), o.partition(), leader, epoch, replicas, isr, offline, o.errorCode());
    }

    /** One answer's topics: the snapshot's own objects except what {@code edit} puts or removes. */
    private static Map<String, TopicMetadata> answer(Cluster current, UnaryOperator<Map<String, TopicMetadata>> edit) {
        Map<String, TopicMetadata> topics = new LinkedHashMap<>();
        for (String name : NAMES) {
            if (current.topic(name) != null) {
                topics.put(name, current.topic(name));
            }
        }
        return edit.apply(topics);
    }

    private static Map<String, UnaryOperator<Map<String, TopicMetadata>>> cases() {
        Map<String, UnaryOperator<Map<String, TopicMetadata>>> c = new LinkedHashMap<>();
        for (int p : new int[] {0, 2, 4}) { // first, middle, last partition
            c.put("leader p" + p, m -> put(m, withPartition(m.get("b"), p,
                    o -> copy(o, (o.leaderId() + 1) % 4, o.leaderEpoch() + 1, o.replicas(), o.inSyncReplicas(), null))));
            c.put("epoch p" + p, m -> put(m, withPartition(m.get("b"), p,
                    o -> copy(o, o.leaderId(), o.leaderEpoch() + 1, o.replicas(), o.inSyncReplicas(), null))));
            c.put("stale epoch p" + p, m -> put(m, withPartition(m.get("b"), p,
                    o -> copy(o, (o.leaderId() + 1) % 4, o.leaderEpoch() - 1, o.replicas(), o.inSyncReplicas(),
                            null))));
            c.put("no epoch p" + p, m -> put(m, withPartition(m.get("b"), p,
                    o -> copy(o, o.leaderId(), -1, o.replicas(), o.inSyncReplicas(), null))));
            c.put("replica p" + p, m -> put(m, withPartition(m.get("c"), p,
                    o -> copy(o, o.leaderId(), o.leaderEpoch(), new int[] {o.leaderId(), 3, 2}, o.inSyncReplicas(),
                            null))));
            c.put("isr p" + p, m -> put(m, withPartition(m.get("c"), p,
                    o -> copy(o, o.leaderId(), o.leaderEpoch(), o.replicas(), new int[] {o.leaderId()}, null))));
            c.put("offline p" + p, m -> put(m, withPartition(m.get("d"), p,
                    o -> copy(o, o.leaderId(), o.leaderEpoch(), o.replicas(), o.inSyncReplicas(), new int[] {1}))));
        }
        c.put("topic added", m -> put(m, topic("new", 1)));
        c.put("topic left out", m -> {
            m.remove("c");
            return m;
        });
        c.put("topic deleted", m -> put(m, TopicMetadata.of("c", null, false,
                ResponseMerger.UNKNOWN_TOPIC_OR_PARTITION, List.of())));
        c.put("topic refused", m -> put(m, TopicMetadata.of("c", null, false,
                ResponseMerger.TOPIC_AUTHORIZATION_FAILED, List.of())));
        c.put("topic error only", m -> put(m, TopicMetadata.of("c", null, false,
                ResponseMerger.LEADER_NOT_AVAILABLE, List.of())));
        c.put("topic id changed", m -> put(m, TopicMetadata.of("a", new UUID(99, 99), false,
                PartitionMetadata.NONE, topic("a", 1).partitions())));
        c.put("partitions reordered", m -> { // a list in another order: the same topic once indexed
            List<PartitionMetadata> reversed = new ArrayList<>(m.get("a").partitions());
            java.util.Collections.reverse(reversed);
            TopicMetadata old = m.get("a");
            return put(m, TopicMetadata.of("a", old.topicId(), false, PartitionMetadata.NONE, reversed));
        });
        c.put("unsubscribed topic changed", m -> put(m, topic("zzz", 3)));
        c.put("nothing changed", m -> m);
        return c;
    }

    private static Map<String, TopicMetadata> put(Map<String, TopicMetadata> m, TopicMetadata t) {
        m.put(t.name(), t);
        return m;
    }

    private static RefreshResponse withHint(Cluster current, Map<String, TopicMetadata> topics, String clusterId) {
        List<TopicMetadata> notFromBase = new ArrayList<>();
        for (TopicMetadata t : topics.values()) {
            if (t != current.topic(t.name()) || t.errorCode() != PartitionMetadata.NONE) {
                notFromBase.add(t);
            }
        }
        return new RefreshResponse(clusterId, 1, NODES, topics, true, (short) 0, current, notFromBase);
    }

    private static RefreshResponse withoutHint(Map<String, TopicMetadata> topics, String clusterId) {
        return new RefreshResponse(clusterId, 1, NODES, topics, true, (short) 0);
    }

    /** Merges with both mergers, asserts the same outcome, and returns the snapshot it leads to. */
    private static Cluster mergeBoth(ResponseMerger skipping, ResponseMerger plain, Cluster current,
                                     Map<String, TopicMetadata> topics, String clusterId, String label) {
        ResponseMerger.Result fast = skipping.merge(current, withHint(current, topics, clusterId), SUBSCRIBED::contains);
        ResponseMerger.Result slow = plain.merge(current, withoutHint(topics, clusterId), SUBSCRIBED::contains);
        assertNotNull(fast, label);
        assertEquals(slow.changedTopics, fast.changedTopics, label + ": changed topics");
        assertEquals(new ArrayList<>(slow.changedTopics), new ArrayList<>(fast.changedTopics), label + ": order");
        assertEquals(slow.staleEpochsRejected, fast.staleEpochsRejected, label + ": stale epochs");
        assertEquals(slow.leadersMoved, fast.leadersMoved, label + ": leaders moved");
        assertEquals(slow.clusterIdChanged, fast.clusterIdChanged, label);
        Cluster a = current.apply(fast.delta);
        Cluster b = current.apply(slow.delta);
        assertTrue(a.contentEquals(b), label + ": " + a + " vs " + b);
        return a;
    }

    @Test
    void everyOneTopicChangeMergesAsWithoutTheHint() {
        Cluster base = start();
        for (Map.Entry<String, UnaryOperator<Map<String, TopicMetadata>>> c : cases().entrySet()) {
            mergeBoth(new ResponseMerger(5), new ResponseMerger(5), base, answer(base, c.getValue()), "c1",
                    c.getKey());
            // And under a new cluster id, where nothing may be skipped.
            mergeBoth(new ResponseMerger(5), new ResponseMerger(5), base, answer(base, c.getValue()), "c2",
                    c.getKey() + " (cluster id changed)");
        }
    }

    @Test
    void changedTopicsAreFoundWhenTheyAreTheOnlyOnesNotReused() {
        Cluster base = start();
        ResponseMerger.Result r = new ResponseMerger(5).merge(base, withHint(base, answer(base,
                m -> put(m, withPartition(m.get("d"), 4, o -> copy(o, (o.leaderId() + 1) % 4, o.leaderEpoch() + 1,
                        o.replicas(), o.inSyncReplicas(), null)))), "c1"), SUBSCRIBED::contains);
        assertEquals(Set.of("d"), r.changedTopics);
        assertEquals(1, r.leadersMoved);
    }

    /**
     * A rewind in progress (the brokers say a lower epoch again and again) counts across answers; an answer that
     * repeats the snapshot's topic resets the count. Skipping reused topics while a count runs would keep it: the
     * hint must not skip then.
     */
    @Test
    void rewindCountsRunTheSameAnswerAfterAnswer() {
        ResponseMerger skipping = new ResponseMerger(3);
        ResponseMerger plain = new ResponseMerger(3);
        Cluster current = start();
        UnaryOperator<Map<String, TopicMetadata>> lower = m -> put(m, withPartition(m.get("b"), 1,
                o -> copy(o, (o.leaderId() + 1) % 4, 2, o.replicas(), o.inSyncReplicas(), null)));
        String[] script = {"lower", "lower", "same", "lower", "lower", "lower", "same", "lower"};
        for (int i = 0; i < script.length; i++) {
            UnaryOperator<Map<String, TopicMetadata>> edit = script[i].equals("lower") ? lower : m -> m;
            current = mergeBoth(skipping, plain, current, answer(current, edit), "c1", "answer " + i + " " + script[i]);
        }
        assertEquals(2, current.topic("b").partition(1).leaderEpoch(), "accepted after 3 in a row");
    }

    /** An answer translated against another snapshot than the one it is merged into is merged whole. */
    @Test
    void aHintForAnotherSnapshotIsNotUsed() {
        Cluster base = start();
        Cluster other = base.apply(ClusterDelta.builder().putTopic(topic("b", 9)).build());
        Map<String, TopicMetadata> topics = answer(base, m -> m); // base's objects; "b" differs from other's
        RefreshResponse hinted = withHint(base, topics, "c1");
        ResponseMerger.Result r = new ResponseMerger(5).merge(other, hinted, SUBSCRIBED::contains);
        ResponseMerger.Result plain = new ResponseMerger(5).merge(other, withoutHint(topics, "c1"),
                SUBSCRIBED::contains);
        assertEquals(plain.changedTopics, r.changedTopics);
        assertEquals(plain.staleEpochsRejected, r.staleEpochsRejected);
        assertTrue(plain.staleEpochsRejected > 0, "the answer's epochs (5) are below other's (9)");
    }
}
