package dev.kmeta.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/** Small builders for test snapshots; every value is derived from its arguments so tests can predict it. */
final class Fixtures {
    private Fixtures() {
    }

    /** Broker {@code id} at {@code broker-<id>:9092}. */
    static Node node(int id) {
        return new Node(id, "broker-" + id, 9092);
    }

    /** Brokers with these ids, in the given order. */
    static List<Node> nodes(int... ids) {
        List<Node> out = new ArrayList<>();
        for (int id : ids) {
            out.add(node(id));
        }
        return out;
    }

    /** A partition led by {@code leader} (replicas: leader, leader + 1, all in sync), epoch {@code 10 + index}. */
    static PartitionMetadata partition(String topic, int index, int leader) {
        int[] replicas = leader < 0 ? new int[] {0, 1} : new int[] {leader, leader + 1};
        return new PartitionMetadata(topic, index, leader, 10 + index, replicas, replicas, null,
                PartitionMetadata.NONE);
    }

    /** A topic whose partition {@code i} is led by {@code leaders[i]} (see {@link #partition}). */
    static TopicMetadata topic(String name, UUID id, int... leaders) {
        List<PartitionMetadata> parts = new ArrayList<>();
        for (int i = 0; i < leaders.length; i++) {
            parts.add(partition(name, i, leaders[i]));
        }
        return TopicMetadata.of(name, id, false, PartitionMetadata.NONE, parts);
    }

    /** A topic without a topic id. */
    static TopicMetadata topic(String name, int... leaders) {
        return topic(name, null, leaders);
    }

    /** A deterministic topic id. */
    static UUID id(long n) {
        return new UUID(0x6b6d657461L, n);
    }

    /** Applies one delta made of these nodes and topics to the empty snapshot. */
    static Cluster cluster(List<Node> nodes, TopicMetadata... topics) {
        ClusterDelta.Builder b = ClusterDelta.builder().nodes(nodes);
        Arrays.stream(topics).forEach(b::putTopic);
        return Cluster.empty().apply(b.build());
    }

    /** The leader ids of every partition of the topic, in index order. */
    static int[] leaders(TopicMetadata t) {
        return t.partitions().stream().mapToInt(PartitionMetadata::leaderId).toArray();
    }

    /** The partition indexes of a list of partitions. */
    static int[] indexes(List<PartitionMetadata> ps) {
        return ps.stream().mapToInt(PartitionMetadata::partition).toArray();
    }
}
