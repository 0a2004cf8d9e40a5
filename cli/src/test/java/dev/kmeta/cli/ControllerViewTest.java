package dev.kmeta.cli;

import dev.kmeta.cli.ControllerProbe.Answer;
import dev.kmeta.cli.ControllerProbe.Mode;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How watch and doctor tell the active controller apart from the id brokers report (issue 18 item 3), without a
 * cluster: KRaft brokers report a random live broker as the Metadata answer's controller, so the snapshots' id is shown
 * only for brokers that do not answer DescribeQuorum (ZooKeeper-era), and a KRaft cluster's controller is its metadata
 * quorum's leader.
 */
class ControllerViewTest {
    private static final Answer KRAFT_3000 = new Answer(Mode.KRAFT, 3000, null);
    private static final Answer ZOOKEEPER = new Answer(Mode.ZOOKEEPER, -1, null);
    private static final Answer UNKNOWN = new Answer(Mode.UNKNOWN, -1, "not authorized to describe the metadata "
            + "quorum (needs DESCRIBE on CLUSTER)");

    private static Cluster reporting(int controllerId) {
        return Cluster.empty().apply(ClusterDelta.builder().clusterId("c1").controllerId(controllerId)
                .nodes(List.of(new Node(0, "10.0.0.1", 9092), new Node(1, "10.0.0.2", 9092),
                        new Node(2, "10.0.0.3", 9092))).build());
    }

    /** What a watch prints for a sequence of (probe answer, snapshot) rounds. */
    private static List<String> watch(List<Answer> answers, List<Cluster> snapshots) {
        List<String> lines = new java.util.ArrayList<>();
        ControllerView shown = null;
        for (int i = 0; i < answers.size(); i++) {
            ControllerView now = ControllerView.of(answers.get(i), shown, snapshots.get(i));
            lines.addAll(now.changesSince(shown));
            shown = now;
        }
        return lines;
    }

    @Test
    void onKraftTheQuorumLeaderIsShownAndTheReportedIdsChurnIsNot() {
        List<String> lines = watch(List.of(KRAFT_3000, KRAFT_3000, KRAFT_3000, KRAFT_3000),
                List.of(reporting(0), reporting(1), reporting(2), reporting(0)));
        assertEquals(List.of("controller 3000 (the KRaft metadata quorum's leader)"), lines);
    }

    @Test
    void aQuorumLeaderChangeIsShownAndAFailedQuestionKeepsTheLastLeader() {
        Answer failed = new Answer(Mode.UNKNOWN, -1, "the metadata quorum did not answer: timed out");
        List<String> lines = watch(List.of(KRAFT_3000, failed, new Answer(Mode.KRAFT, 3001, null)),
                List.of(reporting(0), reporting(1), reporting(2)));
        assertEquals(List.of("controller 3000 (the KRaft metadata quorum's leader)",
                "controller 3000 -> 3001 (KRaft metadata quorum leader)"), lines);
    }

    @Test
    void zookeeperEraBrokersReportTheController() {
        List<String> lines = watch(List.of(ZOOKEEPER, ZOOKEEPER, ZOOKEEPER), List.of(reporting(1), reporting(1),
                reporting(2)));
        assertEquals(List.of("controller 1 (as the brokers report it: they do not answer DescribeQuorum, so "
                + "ZooKeeper mode)", "controller 1 -> 2"), lines);
    }

    @Test
    void unknownSaysWhyOnceAndShowsNoChangesOfTheReportedId() {
        List<String> lines = watch(List.of(UNKNOWN, UNKNOWN, UNKNOWN), List.of(reporting(0), reporting(1),
                reporting(2)));
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("controller unknown: not authorized to describe the metadata quorum"),
                lines.get(0));
        assertTrue(lines.get(0).contains("random live broker"), lines.get(0));
        // Once the quorum answers, its leader is shown.
        assertEquals("controller 3000 (the KRaft metadata quorum's leader)",
                ControllerView.of(KRAFT_3000, ControllerView.of(UNKNOWN, null, reporting(0)), reporting(1))
                        .changesSince(ControllerView.of(UNKNOWN, null, reporting(0))).get(0));
    }

    @Test
    void theDiffLeavesTheReportedIdOutWhenAsked() {
        Cluster first = reporting(0);
        assertEquals(List.of("cluster id c1", "broker 0 at 10.0.0.1:9092", "broker 1 at 10.0.0.2:9092",
                "broker 2 at 10.0.0.3:9092"), ClusterDiff.changes(Cluster.empty(), first, false));
        Cluster next = first.apply(ClusterDelta.builder().controllerId(2).build());
        assertEquals(List.of(), ClusterDiff.changes(first, next, false));
        assertEquals(List.of("controller 0 -> 2"), ClusterDiff.changes(first, next), "as before: the reported id");
    }

    @Test
    void probeAnswersAreClassified() {
        assertEquals(new Answer(Mode.KRAFT, 3000, null), ControllerProbe.classify(3000, null));
        assertEquals(Mode.ZOOKEEPER, ControllerProbe.classify(null,
                new ExecutionException(new UnsupportedVersionException("DescribeQuorum"))).mode());
        Answer denied = ControllerProbe.classify(null, new ExecutionException(
                new ClusterAuthorizationException("denied")));
        assertEquals(Mode.UNKNOWN, denied.mode());
        assertTrue(denied.problem().contains("DESCRIBE on CLUSTER"), denied.problem());
        Answer slow = ControllerProbe.classify(null, new TimeoutException("Timed out waiting for a node"));
        assertEquals(Mode.UNKNOWN, slow.mode());
        assertTrue(slow.problem().contains("Timed out waiting for a node"), slow.problem());
        assertEquals(Mode.UNKNOWN, ControllerProbe.classify(-1, null).mode(), "no leader now");
    }
}
