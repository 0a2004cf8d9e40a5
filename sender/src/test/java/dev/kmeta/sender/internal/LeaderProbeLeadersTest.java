package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link LeaderProbe#leaders}: the nodes that lead a partition, read without the snapshot's per-leader index - the
 * same set as {@code Cluster.partitionsOnNode(id)} being non-empty, whether a node leads nothing, leads only in the
 * last topic read, or a partition has no leader.
 */
class LeaderProbeLeadersTest {
    private static Cluster cluster(int nodes, List<TopicMetadata> topics) {
        List<Node> list = new ArrayList<>();
        for (int id = 0; id < nodes; id++) {
            list.add(new Node(id, "h", 9092 + id));
        }
        ClusterDelta.Builder b = ClusterDelta.builder().clusterId("c").nodes(list);
        topics.forEach(b::putTopic);
        return Cluster.empty().apply(b.build());
    }

    private static TopicMetadata topic(String name, int... leaders) {
        List<PartitionMetadata> partitions = new ArrayList<>();
        for (int p = 0; p < leaders.length; p++) {
            partitions.add(PartitionMetadata.of(name, p, leaders[p], 1));
        }
        return TopicMetadata.of(name, partitions);
    }

    private static Set<Integer> byIndex(Cluster c) {
        Set<Integer> leading = new java.util.HashSet<>();
        for (Node n : c.nodes()) {
            if (!c.partitionsOnNode(n.id()).isEmpty()) {
                leading.add(n.id());
            }
        }
        return leading;
    }

    @Test
    void theSameNodesAsThePerLeaderIndex() {
        List<Cluster> clusters = List.of(
                cluster(3, List.of(topic("a", 0, 1, 2), topic("b", 2, 1, 0))),      // all found early
                cluster(4, List.of(topic("a", 0, 1, 2), topic("b", 2, 1, 0))),      // node 3 leads nothing
                cluster(3, List.of(topic("a", 0, 0), topic("b", 0, -1, 0), topic("c", 0, 0, 0, 2))),
                cluster(3, List.of(topic("a", -1, -1), topic("b", 7, 1))),           // 7 is no node: no leader
                cluster(2, List.of()));
        for (Cluster c : clusters) {
            assertEquals(byIndex(c), LeaderProbe.leaders(c), c.toString());
        }
        assertEquals(Set.of(0, 2), LeaderProbe.leaders(clusters.get(2)));
    }
}
