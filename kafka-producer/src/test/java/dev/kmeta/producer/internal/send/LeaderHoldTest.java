package dev.kmeta.producer.internal.send;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.ConnectionEvidence.Problem;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.internal.EvidenceRecorder;
import dev.kmeta.producer.internal.send.LeaderHold.Verdict;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * LeaderHold's verdict rules on a snapshot and recorded evidence: which sends are held (a leader that never accepted
 * a connection and fails now; without a partition, only when that holds for every partition), and which keep the
 * ordinary semantics (a leader that answered before or accepted a connection, a leaderless partition, a leader not
 * tried yet).
 */
class LeaderHoldTest {
    private static final int ANY = MetadataClient.ANY_PARTITION;
    /** Topic t: partition 0 led by broker 0, partition 1 by broker 1, partition 2 leaderless; topic one on broker 0. */
    private static final Cluster SNAPSHOT = Cluster.empty().apply(ClusterDelta.builder().clusterId("c")
            .nodes(List.of(new Node(0, "127.0.0.1", 9092), new Node(1, "127.0.0.1", 9093)))
            .putTopic(TopicMetadata.of("t", List.of(PartitionMetadata.of("t", 0, 0, 1),
                    PartitionMetadata.of("t", 1, 1, 1), PartitionMetadata.of("t", 2, PartitionMetadata.NO_LEADER, 1))))
            .putTopic(TopicMetadata.of("one", List.of(PartitionMetadata.of("one", 0, 0, 1))))
            .build());

    private final EvidenceRecorder evidence = new EvidenceRecorder();

    private Verdict verdict(String topic, int partition) {
        return LeaderHold.verdict(SNAPSHOT, evidence, topic, partition);
    }

    private ConnectionEvidence.Record record(int broker) {
        return evidence.record(String.valueOf(broker), "127.0.0.1:" + (9092 + broker), false);
    }

    private void refused(int broker) {
        ConnectionEvidence.Record r = record(broker);
        evidence.attempt(r, 1_000);
        evidence.problem(r, Problem.CONNECT_FAILED, "connection refused", 1_001);
    }

    @Test
    void aLeaderNeverConnectedThatFailsHoldsItsPartition() {
        refused(0);
        assertEquals(Verdict.UNREACHABLE, verdict("t", 0));
        assertEquals(Verdict.UNREACHABLE, verdict("one", ANY), "every partition of the topic is on it");
    }

    @Test
    void aLeaderThatAnsweredBeforeKeepsTheOrdinaryRetries() {
        evidence.connected(record(0), 500);
        refused(0); // down now
        assertEquals(Verdict.SENDABLE, verdict("t", 0));
        assertEquals(Verdict.SENDABLE, verdict("one", ANY));
    }

    @Test
    void aLeaderNotTriedYetOrBeingTriedIsUnsettled() {
        assertEquals(Verdict.UNSETTLED, verdict("t", 0), "no record yet");
        evidence.attempt(record(0), 1_000);
        assertEquals(Verdict.UNSETTLED, verdict("t", 0), "an attempt without an outcome");
        assertEquals(Verdict.UNSETTLED, verdict("one", ANY));
    }

    @Test
    void aLeaderWhoseAddressAcceptedAConnectionIsSendableBeforeItsHandshakeEnds() {
        ConnectionEvidence.Record r = record(0);
        evidence.attempt(r, 1_000);
        evidence.accepted(r); // TCP up, ApiVersions not answered yet
        assertEquals(false, r.everConnected(), "accepted is not ready");
        assertEquals(true, r.everAccepted());
        assertEquals(Verdict.SENDABLE, verdict("t", 0), "the producer's own connection goes on from here");
        assertEquals(Verdict.UNSETTLED, verdict("t", 1), "broker 1 not accepted yet");
    }

    @Test
    void aRecordWithoutAPartitionIsHeldOnlyWhenNoPartitionCanGo() {
        refused(0);
        refused(1);
        assertEquals(Verdict.UNREACHABLE, verdict("t", 1));
        assertEquals(Verdict.SENDABLE, verdict("t", ANY), "partition 2 has no leader: the producer's own wait");
        assertEquals(Verdict.SENDABLE, verdict("t", 2));
    }

    @Test
    void otherTopicsAndPartitionsAreNotHeld() {
        refused(0);
        evidence.connected(record(1), 2_000);
        assertEquals(Verdict.SENDABLE, verdict("t", 1));
        assertEquals(Verdict.SENDABLE, verdict("t", ANY));
        assertEquals(Verdict.UNKNOWN_TOPIC, verdict("missing", ANY), "an unknown topic is the metadata wait's");
        assertEquals(Verdict.SENDABLE, verdict("t", 7), "beyond the count: the metadata wait's");
    }

    // ------------------------------------------------------------ the proof a send reads instead of the evidence

    /** A new snapshot (new topic objects: proofs kept on them do not cross tests) with t's partition 0 led by broker {@code leader0}. */
    private static Cluster fresh(int leader0, String host0) {
        return Cluster.empty().apply(ClusterDelta.builder().clusterId("c")
                .nodes(List.of(new Node(0, host0, 9092), new Node(1, "127.0.0.1", 9093),
                        new Node(2, "127.0.0.1", 9094)))
                .putTopic(TopicMetadata.of("t", List.of(PartitionMetadata.of("t", 0, leader0, 1),
                        PartitionMetadata.of("t", 1, 1, 1),
                        PartitionMetadata.of("t", 2, PartitionMetadata.NO_LEADER, 1))))
                .build());
    }

    /** The evidence, counting the reads of it. */
    private final java.util.concurrent.atomic.AtomicInteger evidenceReads = new java.util.concurrent.atomic.AtomicInteger();

    private Verdict sendVerdict(Cluster c, String topic, int partition) {
        return LeaderHold.verdict(c, () -> {
            evidenceReads.incrementAndGet();
            return evidence;
        }, topic, partition);
    }

    @Test
    void aTopicWhoseLeadersAllAcceptedIsSendableWithoutReadingTheEvidenceAgain() {
        Cluster c = fresh(0, "127.0.0.1");
        evidence.connected(record(0), 500);
        evidence.accepted(record(1));
        assertEquals(Verdict.SENDABLE, sendVerdict(c, "t", ANY));
        int reads = evidenceReads.get();
        for (int p : new int[] {ANY, 0, 1, 2, 7}) {
            assertEquals(Verdict.SENDABLE, sendVerdict(c, "t", p));
        }
        assertEquals(reads, evidenceReads.get(), "proven: no partition, broker or evidence record read per send");
        assertEquals(Verdict.UNKNOWN_TOPIC, sendVerdict(c, "missing", ANY));
    }

    @Test
    void aLeaderNotProvenKeepsEverySendOnTheFullVerdictUntilItAccepts() {
        Cluster c = fresh(0, "127.0.0.1");
        evidence.connected(record(0), 500);
        refused(1);
        for (int i = 0; i < 3; i++) {
            assertEquals(Verdict.UNREACHABLE, sendVerdict(c, "t", 1), "never a proof past an unproven leader");
            assertEquals(Verdict.SENDABLE, sendVerdict(c, "t", 0));
            assertEquals(Verdict.SENDABLE, sendVerdict(c, "t", ANY));
        }
        evidence.accepted(record(1));
        assertEquals(Verdict.SENDABLE, sendVerdict(c, "t", 1));
        int reads = evidenceReads.get();
        assertEquals(Verdict.SENDABLE, sendVerdict(c, "t", 1));
        assertEquals(reads, evidenceReads.get(), "proven once broker 1 accepted");
    }

    @Test
    void aProofHoldsForOneTopicObjectOverOneBrokerList() {
        Cluster before = fresh(0, "127.0.0.1");
        evidence.connected(record(0), 500);
        evidence.connected(record(1), 500);
        assertEquals(Verdict.SENDABLE, sendVerdict(before, "t", 0));
        refused(2);
        assertEquals(Verdict.UNREACHABLE, sendVerdict(fresh(2, "127.0.0.1"), "t", 0),
                "partition 0 moved to broker 2, which never accepted: a new topic object, a new proof");
        Cluster moved = before.apply(ClusterDelta.builder().clusterId("c")
                .nodes(List.of(new Node(0, "127.0.0.2", 9092), new Node(1, "127.0.0.1", 9093),
                        new Node(2, "127.0.0.1", 9094))).build());
        assertEquals(true, moved.topic("t") == before.topic("t"), "the topic object is shared; the brokers changed");
        assertEquals(Verdict.UNSETTLED, sendVerdict(moved, "t", 0),
                "broker 0 at a new address, not tried there: the proof over the old broker list does not hold");
    }
}
