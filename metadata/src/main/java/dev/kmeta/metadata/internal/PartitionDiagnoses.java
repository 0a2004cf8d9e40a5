package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.metadata.Diagnosis;

/**
 * The diagnoses of a partition a producer asks for outside any wait: why a record for it cannot go out now
 * ({@link MetadataManager#diagnosePartition}; null when its leader is not in doubt, allocating nothing then) and why
 * a record for it was not delivered ({@link MetadataManager#diagnoseUndelivered}; never null). Both decide with
 * {@link Diagnoser}'s rules from the shared state's read-only {@link ManagerState.View}.
 *
 * <p>Concurrency: any thread; no lock. Reads the snapshot and the evidence, writes nothing.
 */
final class PartitionDiagnoses {
    private final ManagerState.View view;

    PartitionDiagnoses(ManagerState.View view) {
        this.view = view;
    }

    /** See {@link MetadataManager#diagnosePartition}. */
    Diagnosis partition(String topic, int partition) {
        return partition(topic, partition, leaderOf(view.snapshot(), topic, partition));
    }

    /** See {@link MetadataManager#diagnoseUndelivered}. */
    Diagnosis undelivered(String topic, int partition) {
        Node leader = leaderOf(view.snapshot(), topic, partition);
        Diagnosis d = partition(topic, partition, leader);
        // null only when the partition has a leader nothing speaks against
        return d != null ? d : Diagnoser.undelivered(view.facts(topic, partition, 0,
                view.subscriptions().get(topic), null), leader, view.ticker().milliTime());
    }

    private Diagnosis partition(String topic, int partition, Node leader) {
        if (leader != null && !Diagnoser.leaderInDoubt(view.connections(), leader)) {
            return null;
        }
        Diagnosis d = view.diagnose(topic, partition, 0, view.subscriptions().get(topic), null);
        return leader != null && d.cause() == Diagnosis.Cause.NO_ANSWER_IN_TIME ? null : d;
    }

    private static Node leaderOf(Cluster c, String topic, int partition) {
        PartitionMetadata p = c.partition(topic, partition);
        return p == null || !p.hasLeader() ? null : c.node(p.leaderId());
    }
}
