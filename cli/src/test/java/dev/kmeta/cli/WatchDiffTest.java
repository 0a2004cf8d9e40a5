package dev.kmeta.cli;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.internal.EvidenceRecorder;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@code kmeta watch} prints for each kind of change between two snapshots (unit test, no cluster). */
class WatchDiffTest {
    private static final Node B0 = new Node(0, "10.0.0.1", 9092);
    private static final Node B1 = new Node(1, "10.0.0.2", 9092);
    private static final Node B2 = new Node(2, "10.0.0.3", 9092);
    private static final UUID ID = new UUID(1, 2);

    private static PartitionMetadata p(int index, int leader, int epoch, int... isr) {
        return new PartitionMetadata("orders", index, leader, epoch, new int[] {0, 1}, isr, null,
                PartitionMetadata.NONE);
    }

    private static TopicMetadata orders(UUID id, PartitionMetadata... partitions) {
        return TopicMetadata.of("orders", id, false, PartitionMetadata.NONE, List.of(partitions));
    }

    private static Cluster start() {
        return Cluster.empty().apply(ClusterDelta.builder().clusterId("c1").controllerId(1).nodes(List.of(B0, B1))
                .putTopic(orders(ID, p(0, 0, 3, 0, 1), p(1, 1, 5, 0, 1))).build());
    }

    @Test
    void theFirstSnapshotIsDescribedWhole() {
        assertEquals(List.of("cluster id c1, controller 1", "broker 0 at 10.0.0.1:9092", "broker 1 at 10.0.0.2:9092",
                "topic orders: 2 partition(s), leaders 0:0 1:1"), ClusterDiff.changes(Cluster.empty(), start()));
    }

    @Test
    void nothingChangedPrintsNothing() {
        Cluster same = start().apply(ClusterDelta.builder().putTopic(orders(ID, p(0, 0, 3, 0, 1),
                p(1, 1, 5, 0, 1))).build());
        assertEquals(List.of(), ClusterDiff.changes(start(), same));
    }

    @Test
    void leaderMovesEpochsAndIsrChanges() {
        Cluster after = start().apply(ClusterDelta.builder()
                .putTopic(orders(ID, p(0, 1, 4, 1), p(1, 1, 6, 0, 1))).build());
        assertEquals(List.of("orders-0: leader 0 -> 1 (epoch 3 -> 4)", "orders-0: isr [0, 1] -> [1]",
                "orders-1: leader 1 re-elected (epoch 5 -> 6)"), ClusterDiff.changes(start(), after));
    }

    @Test
    void partitionCountChangesAndNewPartitions() {
        Cluster after = start().apply(ClusterDelta.builder()
                .putTopic(orders(ID, p(0, 0, 3, 0, 1), p(1, 1, 5, 0, 1), p(2, 0, 0, 0, 1))).build());
        assertEquals(List.of("topic orders: partitions 2 -> 3", "orders-2: new partition, leader 0 (epoch 0)"),
                ClusterDiff.changes(start(), after));
    }

    @Test
    void brokersJoinLeaveAndMove() {
        Node movedB1 = new Node(1, "10.0.0.9", 9093);
        Cluster after = start().apply(ClusterDelta.builder().nodes(List.of(movedB1, B2))
                .putTopic(orders(ID, p(0, 1, 4, 1), p(1, 1, 5, 1))).build());
        List<String> lines = new ArrayList<>(ClusterDiff.changes(start(), after));
        assertEquals(List.of("broker 1 moved: 10.0.0.2:9092 -> 10.0.0.9:9093", "broker 2 joined at 10.0.0.3:9092",
                "broker 0 left (was at 10.0.0.1:9092)", "orders-0: leader 0 -> 1 (epoch 3 -> 4)",
                "orders-0: isr [0, 1] -> [1]", "orders-1: isr [0, 1] -> [1]"), lines);
    }

    @Test
    void clusterIdChangesTopicsGoAndGetRecreated() {
        Cluster otherCluster = start().apply(ClusterDelta.builder().clusterId("c2").removeTopic("orders").build());
        assertEquals(List.of("cluster id changed: c1 -> c2 (the bootstrap now leads to another cluster)",
                "topic orders is gone (deleted, or no longer answered for)"),
                ClusterDiff.changes(start(), otherCluster));

        UUID newId = new UUID(3, 4);
        Cluster recreated = start().apply(ClusterDelta.builder()
                .putTopic(orders(newId, p(0, 0, 0, 0, 1), p(1, 1, 0, 0, 1))).build());
        assertEquals("topic orders was re-created: id " + ID + " -> " + newId,
                ClusterDiff.changes(start(), recreated).get(0));
    }

    @Test
    void brokersAreUnreachableWhenEveryAddressInUseFailsNow() {
        EvidenceRecorder evidence = new EvidenceRecorder();
        assertFalse(WatchCommand.allFailing(evidence), "nothing tried yet");
        ConnectionEvidence.Record bootstrap = evidence.record("-1", "10.0.0.1:9092", true);
        evidence.problem(bootstrap, ConnectionEvidence.Problem.CONNECT_FAILED, "refused", 1);
        assertTrue(WatchCommand.allFailing(evidence), "the only bootstrap address fails");
        evidence.answer(bootstrap, 2);
        assertFalse(WatchCommand.allFailing(evidence), "the bootstrap answered");

        ConnectionEvidence.Record b0 = evidence.record("0", "10.0.0.1:9093", false);
        ConnectionEvidence.Record b1 = evidence.record("1", "10.0.0.2:9093", false);
        evidence.answer(b0, 3);
        evidence.problem(b1, ConnectionEvidence.Problem.CONNECT_FAILED, "refused", 4);
        assertFalse(WatchCommand.allFailing(evidence), "broker 0 still answers");
        evidence.problem(b0, ConnectionEvidence.Problem.DISCONNECTED, "gone", 5);
        assertTrue(WatchCommand.allFailing(evidence), "every learned broker fails, whatever the bootstrap said once");
        evidence.answer(b1, 6);
        assertFalse(WatchCommand.allFailing(evidence), "broker 1 answers again");
    }

    @Test
    void refusedTopicsAreNamed() {
        Cluster after = start().apply(ClusterDelta.builder().unauthorizedTopic("secret").build());
        assertEquals(List.of("topic secret: not authorized"), ClusterDiff.changes(start(), after));
    }
}
