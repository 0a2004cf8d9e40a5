package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.ConnectionEvidence.Problem;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.Diagnosis.Cause;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The decision rules on recorded evidence, one case per cause. */
class DiagnoserTest {
    private static final Cluster KNOWN = Cluster.empty().apply(ClusterDelta.builder().clusterId("c1")
            .nodes(List.of(new Node(1, "127.0.0.1", 9092))).build());

    private static Diagnoser.Facts facts(Cluster c, String topic, int partition) {
        Diagnoser.Facts f = new Diagnoser.Facts();
        f.snapshot = c;
        f.topic = topic;
        f.partition = partition;
        f.budgetMs = 5_000;
        f.connections = new EvidenceRecorder();
        f.entry = new TopicEntry(topic == null ? "x" : topic, 0);
        f.waitStartMs = 1_000;
        return f;
    }

    private static EvidenceRecorder recorder(Diagnoser.Facts f) {
        return (EvidenceRecorder) f.connections;
    }

    private static ConnectionEvidence.Record failed(Diagnoser.Facts f, String id, String address, boolean bootstrap,
                                                    Problem p, String detail) {
        ConnectionEvidence.Record r = recorder(f).record(id, address, bootstrap);
        recorder(f).attempt(r, 1_500);
        recorder(f).problem(r, p, detail, 1_600);
        return r;
    }

    @Test
    void bootstrapRefusedIsUnreachable() {
        Diagnoser.Facts f = facts(Cluster.empty(), "t", -1);
        failed(f, "-1", "127.0.0.1:1", true, Problem.DISCONNECTED, null);
        Diagnosis d = Diagnoser.diagnose(f);
        assertEquals(Cause.BOOTSTRAP_UNREACHABLE, d.cause());
        assertTrue(d.seen().contains("127.0.0.1:1") && d.seen().contains("refused"), d.seen());
        assertTrue(d.message().startsWith("BOOTSTRAP_UNREACHABLE: no metadata for topic t after 5000 ms"));
    }

    @Test
    void bootstrapNameNotResolvingIsDns() {
        Diagnoser.Facts f = facts(Cluster.empty(), "t", -1);
        failed(f, "-1", "kafka.nowhere.test:9092", true, Problem.DNS, "cannot resolve host name kafka.nowhere.test");
        assertEquals(Cause.BOOTSTRAP_DNS, Diagnoser.diagnose(f).cause());
    }

    @Test
    void authenticationAndTlsAreToldApart() {
        Diagnoser.Facts sasl = facts(Cluster.empty(), "t", -1);
        failed(sasl, "-1", "127.0.0.1:9093", true, Problem.AUTHENTICATION, "Authentication failed: invalid creds");
        assertEquals(Cause.AUTHENTICATION_FAILED, Diagnoser.diagnose(sasl).cause());
        Diagnoser.Facts tls = facts(Cluster.empty(), "t", -1);
        failed(tls, "-1", "127.0.0.1:9093", true, Problem.TLS_HANDSHAKE, "SSL handshake failed");
        assertEquals(Cause.TLS_HANDSHAKE_FAILED, Diagnoser.diagnose(tls).cause());
    }

    @Test
    void bootstrapAnsweredButTheAdvertisedAddressFails() {
        Diagnoser.Facts f = facts(KNOWN, "t", -1);
        ConnectionEvidence.Record boot = recorder(f).record("-1", "127.0.0.1:9092", true);
        recorder(f).attempt(boot, 1_100);
        recorder(f).answer(boot, 1_200);
        failed(f, "1", "127.0.0.99:19093", false, Problem.DISCONNECTED, null);
        Diagnosis d = Diagnoser.diagnose(f);
        assertEquals(Cause.ADVERTISED_LISTENER_UNREACHABLE, d.cause());
        assertTrue(d.seen().contains("broker 1 advertises 127.0.0.99:19093"), d.seen());
        assertTrue(d.fix().contains("advertised.listeners"), d.fix());
    }

    @Test
    void brokersThatAnsweredBeforeButFailNowAreUnreachable() {
        Diagnoser.Facts f = facts(KNOWN, "t", -1);
        ConnectionEvidence.Record b = recorder(f).record("1", "127.0.0.1:9092", false);
        recorder(f).attempt(b, 500);
        recorder(f).answer(b, 600);
        recorder(f).problem(b, Problem.REQUEST_TIMEOUT, "no answer", 2_000);
        assertEquals(Cause.BROKERS_UNREACHABLE, Diagnoser.diagnose(f).cause());
    }

    @Test
    void topicCausesComeFromWhatTheBrokersSaid() {
        Diagnoser.Facts missing = facts(KNOWN, "ghost", -1);
        missing.entry.recordError(ResponseMerger.UNKNOWN_TOPIC_OR_PARTITION);
        missing.entry.recordError(ResponseMerger.UNKNOWN_TOPIC_OR_PARTITION);
        Diagnosis d = Diagnoser.diagnose(missing);
        assertEquals(Cause.TOPIC_NOT_FOUND, d.cause());
        assertTrue(d.seen().contains("2 time(s)") && d.seen().contains("did not allow"), d.seen());

        Cluster denied = KNOWN.apply(ClusterDelta.builder().unauthorizedTopic("secret").build());
        assertEquals(Cause.TOPIC_NOT_AUTHORIZED, Diagnoser.diagnose(facts(denied, "secret", -1)).cause());

        TopicMetadata t = TopicMetadata.of("t", List.of(PartitionMetadata.of("t", 0, 1, 3),
                new PartitionMetadata("t", 1, -1, 3, new int[] {2}, new int[0], new int[] {2}, (short) 5)));
        Cluster withTopic = KNOWN.apply(ClusterDelta.builder().putTopic(t).build());
        Diagnosis range = Diagnoser.diagnose(facts(withTopic, "t", 7));
        assertEquals(Cause.PARTITION_OUT_OF_RANGE, range.cause());
        assertEquals(2, range.partitionCount());
        assertEquals(Cause.LEADER_NOT_AVAILABLE, Diagnoser.diagnose(facts(withTopic, "t", 1)).cause());
    }

    /** The entry's record of answers: {@code true} one showed the topic, {@code false} one called it unknown. */
    private static void answers(TopicEntry e, long startMs, long stepMs, boolean... shown) {
        long nowMs = startMs;
        for (boolean s : shown) {
            short error = s ? 0 : ResponseMerger.UNKNOWN_TOPIC_OR_PARTITION;
            e.recordError(error);
            e.recordExistence(s, error, nowMs);
            nowMs += stepMs;
        }
    }

    @Test
    void aTopicShownMomentsBeforeItWasCalledUnknownIsPropagating() {
        Diagnoser.Facts f = facts(KNOWN, "fresh", -1);
        answers(f.entry, 10_000, 100, true, false, false, false);
        Diagnosis d = Diagnoser.diagnose(f);
        assertEquals(Cause.TOPIC_PROPAGATING, d.cause(), d.message());
        assertTrue(d.seen().contains("3 time(s) in a row") && d.seen().contains("100 ms before")
                && d.seen().contains("created moments ago"), d.seen());
        assertTrue(d.fix().contains("max.block.ms") && d.fix().contains("wait after creating"), d.fix());

        // Shown once, called unknown only after the window: deleted, not propagating.
        Diagnoser.Facts deleted = facts(KNOWN, "gone", -1);
        answers(deleted.entry, 10_000, Diagnoser.PROPAGATION_WINDOW_MS + 1, true, false, false);
        assertEquals(Cause.TOPIC_NOT_FOUND, Diagnoser.diagnose(deleted).cause());
        // Never shown: it does not exist.
        Diagnoser.Facts never = facts(KNOWN, "never", -1);
        answers(never.entry, 10_000, 100, false, false);
        assertEquals(Cause.TOPIC_NOT_FOUND, Diagnoser.diagnose(never).cause());
    }

    @Test
    void brokersDisagreeingAboutATopicIsPropagatingWhateverTheTime() {
        Diagnoser.Facts f = facts(KNOWN, "split", -1);
        long longMs = Diagnoser.PROPAGATION_WINDOW_MS * 2;
        answers(f.entry, 10_000, longMs, true, false, true, false);
        Diagnosis d = Diagnoser.diagnose(f);
        assertEquals(Cause.TOPIC_PROPAGATING, d.cause(), d.message());
        assertTrue(d.seen().contains("disagree") && d.seen().contains("1 time(s) after"), d.seen());
    }

    @Test
    void aLearnedAddressThatRefusedKmetasIdentityIsMisrouted() {
        Diagnoser.Facts f = facts(KNOWN, "t", -1);
        ConnectionEvidence.Record boot = recorder(f).record("-1", "127.0.0.1:9092", true);
        recorder(f).attempt(boot, 1_100);
        recorder(f).answer(boot, 1_200);
        ConnectionEvidence.Record b = recorder(f).record("1", "127.0.0.1:9092", false);
        recorder(f).attempt(b, 500);
        recorder(f).answer(b, 600);
        recorder(f).attempt(b, 1_500);
        recorder(f).problem(b, Problem.MISROUTED, "the broker there refused cluster id c1 and node id 1", 1_600);
        Diagnosis d = Diagnoser.diagnose(f);
        assertEquals(Cause.MISROUTED_CONNECTION, d.cause(), d.message());
        assertTrue(d.seen().contains("broker 1's address 127.0.0.1:9092 leads to another broker")
                && d.seen().contains("refused cluster id c1"), d.seen());
        assertTrue(d.fix().contains("advertised.listeners"), d.fix());

        TopicMetadata t = TopicMetadata.of("t", List.of(PartitionMetadata.of("t", 0, 1, 3)));
        Diagnoser.Facts led = facts(KNOWN.apply(ClusterDelta.builder().putTopic(t).build()), "t", 0);
        ConnectionEvidence.Record leader = recorder(led).record("1", "127.0.0.1:9092", false);
        recorder(led).attempt(leader, 1_500);
        recorder(led).problem(leader, Problem.MISROUTED, null, 1_600);
        Diagnosis p = Diagnoser.diagnose(led);
        assertEquals(Cause.MISROUTED_CONNECTION, p.cause(), p.message());
        assertTrue(p.seen().contains("it leads partition 0"), p.seen());
    }

    @Test
    void clusterIdChangeDuringTheWaitIsReported() {
        Diagnoser.Facts f = facts(KNOWN, "t", -1);
        f.previousClusterId = "c0";
        f.clusterIdChangedDuringWait = true;
        Diagnosis d = Diagnoser.diagnose(f);
        assertEquals(Cause.CLUSTER_ID_CHANGED, d.cause());
        assertEquals("c0", d.previousClusterId());
        assertTrue(d.evidence().contains("cluster id c1 (was c0)"), d.evidence().toString());
    }

    @Test
    void theNewClusterNotKnowingTheTopicIsStillAClusterIdChange() {
        // What a real broker of the other cluster says of the old cluster's topic: UNKNOWN_TOPIC_OR_PARTITION.
        Diagnoser.Facts during = facts(KNOWN, "t", -1);
        during.previousClusterId = "c0";
        during.clusterIdChangedDuringWait = true;
        during.entry.recordError(ResponseMerger.UNKNOWN_TOPIC_OR_PARTITION);
        Diagnosis d = Diagnoser.diagnose(during);
        assertEquals(Cause.CLUSTER_ID_CHANGED, d.cause(), d.message());
        assertTrue(d.seen().contains("changed from c0 to c1") && d.seen().contains("UNKNOWN_TOPIC_OR_PARTITION"),
                d.seen());

        // The change came before the wait, but the topic had metadata before it: dropped with the old cluster's.
        Diagnoser.Facts after = facts(KNOWN, "t", -1);
        after.previousClusterId = "c0";
        after.entry.known = true;
        after.entry.recordError(ResponseMerger.UNKNOWN_TOPIC_OR_PARTITION);
        assertEquals(Cause.CLUSTER_ID_CHANGED, Diagnoser.diagnose(after).cause());

        // A topic never seen, asked for after an old change: it just does not exist.
        Diagnoser.Facts never = facts(KNOWN, "t", -1);
        never.previousClusterId = "c0";
        never.entry.recordError(ResponseMerger.UNKNOWN_TOPIC_OR_PARTITION);
        assertEquals(Cause.TOPIC_NOT_FOUND, Diagnoser.diagnose(never).cause());
    }

    @Test
    void aFatalSslErrorIsATlsProblemEvenWithoutARecord() {
        Diagnoser.Facts f = facts(Cluster.empty(), null, -1);
        f.fatal = new SslLikeException();
        assertEquals(Cause.TLS_HANDSHAKE_FAILED, Diagnoser.diagnose(f).cause());
    }

    /** A topic whose partition 0 is led by broker 1 at 127.0.0.1:19093 and partition 1 has no leader. */
    private static final Cluster LED = Cluster.empty().apply(ClusterDelta.builder().clusterId("c1")
            .nodes(List.of(new Node(1, "127.0.0.1", 19093))).putTopic(TopicMetadata.of("led", List.of(
                    PartitionMetadata.of("led", 0, 1, 3),
                    new PartitionMetadata("led", 1, -1, 3, new int[] {1}, new int[0], new int[] {1}, (short) 5))))
            .build());

    private static ConnectionEvidence.Record answeredBootstrap(Diagnoser.Facts f) {
        ConnectionEvidence.Record boot = recorder(f).record("-1", "127.0.0.1:9092", true);
        recorder(f).attempt(boot, 1_100);
        recorder(f).answer(boot, 1_200);
        return boot;
    }

    @Test
    void aLeaderThatNeverAcceptedAConnectionWhileTheBootstrapAnsweredIsAnAdvertisedListenerProblem() {
        Diagnoser.Facts f = facts(LED, "led", 0);
        answeredBootstrap(f);
        ConnectionEvidence.Record leader = failed(f, "1", "127.0.0.1:19093", false, Problem.DISCONNECTED, null);
        recorder(f).attempt(leader, 1_700);
        recorder(f).problem(leader, Problem.DISCONNECTED, null, 1_800);

        Diagnosis d = Diagnoser.diagnose(f);

        assertEquals(Cause.ADVERTISED_LISTENER_UNREACHABLE, d.cause(), d.message());
        assertTrue(d.seen().startsWith("broker 1 advertises 127.0.0.1:19093, unreachable from here: connection "
                + "refused or timed out (2 attempt(s)); it leads partition 0 and never accepted a connection, while "
                + "bootstrap 127.0.0.1:9092 answered"), d.seen());
        assertTrue(d.fix().contains("advertised.listeners"), d.fix());
    }

    @Test
    void aLeaderThatWasConnectedBeforeAndCannotBeReachedNowIsBrokersUnreachable() {
        Diagnoser.Facts f = facts(LED, "led", 0);
        answeredBootstrap(f);
        ConnectionEvidence.Record leader = recorder(f).record("1", "127.0.0.1:19093", false);
        recorder(f).attempt(leader, 1_300);
        recorder(f).connected(leader, 1_310);
        recorder(f).problem(leader, Problem.DISCONNECTED, null, 1_500); // the connection drops: not yet a verdict
        assertEquals(Cause.NO_ANSWER_IN_TIME, Diagnoser.diagnose(f).cause(), "a drop alone may mend");
        recorder(f).attempt(leader, 1_600);
        recorder(f).problem(leader, Problem.DISCONNECTED, null, 1_700); // the reconnect fails: not connected

        Diagnosis d = Diagnoser.diagnose(f);

        assertEquals(Cause.BROKERS_UNREACHABLE, d.cause(), d.message());
        assertTrue(d.seen().startsWith("broker 1 at 127.0.0.1:19093, the leader of partition 0, answered before and "
                + "cannot be reached now: connection refused or timed out"), d.seen());
    }

    @Test
    void aLeaderConnectedAgainIsNoLongerInDoubt() {
        Diagnoser.Facts f = facts(LED, "led", 0);
        answeredBootstrap(f);
        ConnectionEvidence.Record leader = failed(f, "1", "127.0.0.1:19093", false, Problem.CONNECT_FAILED, null);
        assertEquals(Cause.ADVERTISED_LISTENER_UNREACHABLE, Diagnoser.diagnose(f).cause());
        recorder(f).connected(leader, 1_900); // the listener was fixed

        assertEquals(Cause.NO_ANSWER_IN_TIME, Diagnoser.diagnose(f).cause());
        // Evidence of another address at the leader's id (it moved) says nothing about the leader either.
        Diagnoser.Facts moved = facts(LED, "led", 0);
        answeredBootstrap(moved);
        failed(moved, "1", "127.0.0.1:29093", false, Problem.CONNECT_FAILED, null);
        assertEquals(Cause.NO_ANSWER_IN_TIME, Diagnoser.diagnose(moved).cause());
    }

    @Test
    void aLeaderlessPartitionIsLeaderNotAvailableWhateverItsReplicasEvidence() {
        Diagnoser.Facts f = facts(LED, "led", 1);
        answeredBootstrap(f);
        failed(f, "1", "127.0.0.1:19093", false, Problem.CONNECT_FAILED, null);
        Diagnosis d = Diagnoser.diagnose(f);
        assertEquals(Cause.LEADER_NOT_AVAILABLE, d.cause(), d.message());
        assertTrue(d.seen().startsWith("the partition has had no leader (replicas [1]"), d.seen());
    }

    /** Named like kafka-clients' SslAuthenticationException, which metadata cannot see. */
    private static final class SslLikeException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SslLikeException() {
            super("handshake failed");
        }
    }
}
