package dev.kmeta.sender;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.metadata.Deadline;
import org.apache.kafka.common.errors.TimeoutException;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.sender.ItSupport.fastProps;
import static dev.kmeta.sender.ItSupport.millisSince;
import static dev.kmeta.sender.ItSupport.onNewThread;
import static dev.kmeta.sender.ItSupport.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three brokers (plus a controller) behind FaultProxies; the client bootstraps through the proxies and the brokers
 * advertise them, so every byte kmeta exchanges goes through a proxy. Brokers stop and return, proxies go dark and
 * reset connections; the client follows without a restart, doing what a producer would do (invalidate a partition
 * whose send failed, wait for the partition it sends to).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FailoverTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(3).withProxies());

    @BeforeEach
    @AfterEach
    void healthyCluster() {
        KafkaCluster cluster = KAFKA.cluster();
        for (int id : cluster.brokerIds()) {
            cluster.proxy(id).pass().latencyMs(0);
            if (!cluster.runningBrokerIds().contains(id)) {
                cluster.startBroker(id);
            }
        }
    }

    private static KafkaMetadata client() {
        return KafkaMetadata.create(fastProps(KAFKA.cluster().proxiedBootstrapServers()));
    }

    /** A client whose requests time out after {@code requestTimeoutMs}. */
    private static KafkaMetadata client(long requestTimeoutMs) {
        Map<String, Object> p = fastProps(KAFKA.cluster().proxiedBootstrapServers());
        p.put("request.timeout.ms", requestTimeoutMs);
        return KafkaMetadata.create(p);
    }

    /** The snapshot's leader of a partition: same id as Admin's, reached through that broker's proxy. */
    private static void assertLeaderAsAdminSays(KafkaCluster cluster, Cluster c, String topic, int partition) {
        int expected = cluster.leader(topic, partition);
        Node leader = c.leader(topic, partition);
        assertNotNull(leader, topic + "-" + partition + " has no leader in " + c);
        assertEquals(expected, leader.id(), topic + "-" + partition);
        assertEquals(cluster.proxy(expected).port(), leader.port(), "the leader is reached through its proxy");
    }

    private static long attempts(KafkaMetadata m) {
        return m.evidence().records().stream().mapToLong(ConnectionEvidence.Record::attempts).sum();
    }

    /** True once the snapshot names a leader other than {@code old}; else invalidates, as a failed send would. */
    private static boolean hasOtherLeaderElseInvalidate(KafkaMetadata m, String topic, int partition, int old) {
        Node leader = m.fetch().leader(topic, partition);
        if (leader != null && leader.id() != old) {
            return true;
        }
        m.invalidate(topic, partition);
        return false;
    }

    @Test
    void aStoppedLeaderIsReplacedAndTheBrokerRejoinsAfterARestart() {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("failover", 3, 3);
        try (KafkaMetadata m = client()) {
            Cluster c = m.awaitTopic("failover", m.newDeadline(Duration.ofSeconds(30)));
            for (int p = 0; p < 3; p++) {
                assertLeaderAsAdminSays(cluster, c, "failover", p);
            }
            assertEquals(3, c.nodes().size());
            int old = cluster.leader("failover", 0);

            long stopStart = System.nanoTime();
            cluster.stopBroker(old);
            long stopped = System.nanoTime();
            // A producer's sends to the old leader now fail (disconnect, NOT_LEADER_OR_FOLLOWER): it invalidates the
            // partition, and keeps doing so on each failed retry until the metadata names another leader.
            await().atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                    .until(() -> hasOtherLeaderElseInvalidate(m, "failover", 0, old));
            long learnedMs = millisSince(stopped);
            report("failover: broker %s stopped in %s ms; kmeta named the new leader %s ms after the stop returned",
                    old, (stopped - stopStart) / 1_000_000, learnedMs);
            c = m.fetch();
            assertLeaderAsAdminSays(cluster, c, "failover", 0);
            assertNotEquals(old, c.leader("failover", 0).id());
            // A cache hit for the send path: the partition's wait returns at once with the new leader.
            assertEquals(c.leader("failover", 0), m.awaitTopic("failover", 0, m.newDeadline(Duration.ZERO)).leader("failover", 0));
            for (int p = 0; p < 3; p++) {
                m.invalidate("failover", p);
            }
            // The brokers drop the stopped one from their answers once the controller fences it, which on a loaded
            // 2-core machine (a second build beside the suite) took longer than 10 s once.
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                Cluster now = m.fetch();
                for (int p = 0; p < 3; p++) {
                    if (now.leader("failover", p) == null || now.leader("failover", p).id() == old) {
                        m.invalidate("failover", p);
                        return false;
                    }
                }
                return now.node(old) == null;
            });
            assertNull(m.fetch().node(old), "a stopped broker leaves the node set: " + m.fetch().nodes());
            for (int p = 0; p < 3; p++) {
                assertLeaderAsAdminSays(cluster, m.fetch(), "failover", p);
            }

            cluster.startBroker(old);
            long started = System.nanoTime();
            // kmeta learns brokers from metadata answers only: a producer that wants the new broker asks for a refresh.
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                int v = m.requestUpdate();
                m.awaitUpdate(v, m.newDeadline(Duration.ofSeconds(5)));
                return m.fetch().node(old) != null;
            });
            report("failover: broker %s back in the node set %s ms after its restart", old, millisSince(started));
            Node back = m.fetch().node(old);
            assertEquals(cluster.proxy(old).port(), back.port());
            assertEquals(3, m.fetch().nodes().size());
            // The sender settles its state machine just after it wakes the waiters it answered.
            await().atMost(Duration.ofSeconds(5)).until(() -> m.state() == RefreshState.STABLE);
        }
    }

    @Test
    void aSendWaitingForALeaderlessPartitionIsReleasedWhenItsBrokerReturns() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("solo", 1, 1);
        int owner = cluster.leader("solo", 0);
        try (KafkaMetadata m = client()) {
            assertLeaderAsAdminSays(cluster, m.awaitTopic("solo", 0, m.newDeadline(Duration.ofSeconds(30))), "solo", 0);
            cluster.stopBroker(owner);
            // The producer's send to the only replica failed: it invalidates; the answer says "no leader".
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
                if (!m.fetch().partition("solo", 0).hasLeader()) {
                    return true;
                }
                m.invalidate("solo", 0);
                return false;
            });
            assertEquals(-1, cluster.leader("solo", 0));

            CompletableFuture<Cluster> send = onNewThread("solo-send",
                    () -> m.awaitTopic("solo", 0, m.newDeadline(Duration.ofSeconds(60))));
            await().atMost(Duration.ofSeconds(10)).until(() -> m.stats().waitersNow() == 1);
            long sentBefore = m.stats().requestsSent();
            // It stays parked while the partition has no leader, and kmeta keeps asking (leaderless refresh).
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> !send.isDone());
            long asked = m.stats().requestsSent() - sentBefore;
            assertTrue(asked >= 2 && asked <= 25, "requests while leaderless for 2 s: " + asked);

            cluster.startBroker(owner);
            long started = System.nanoTime();
            Cluster c = send.get(30, TimeUnit.SECONDS);
            report("leaderless: the waiting send was released %s ms after broker %s was back",
                    millisSince(started), owner);
            assertEquals(owner, c.leader("solo", 0).id());
            assertEquals(cluster.proxy(owner).port(), c.leader("solo", 0).port());
            assertNotNull(c.node(owner));
        }
    }

    @Test
    void allBrokersDarkThenBackTheClientRecoversWithoutARestart() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("dark", 2, 3);
        // Requests time out after 1 s; the unknown topic's wait in the dark takes 4 s (four request timeouts: under a
        // second build on 2 cores, with the sender's tests in two JVMs, kmeta's first dark request went out so late that
        // at 2 s it had not timed out yet, and the diagnosis rightly had no evidence of unreachable brokers), the
        // update's 1 s.
        try (KafkaMetadata m = client(1_000)) {
            assertEquals(2, m.awaitTopic("dark", m.newDeadline(Duration.ofSeconds(30))).partitionCount("dark"));
            // kmeta connects to each leader once (its advertised-listener probe): these brokers "answered before".
            await().atMost(Duration.ofSeconds(10)).until(() -> m.fetch().topic("dark").availablePartitions().stream()
                    .map(p -> m.evidence().broker(p.leaderId()))
                    .allMatch(r -> r != null && r.everConnected()));
            long attemptsBefore = attempts(m);
            for (int id : cluster.brokerIds()) {
                cluster.proxy(id).blackhole();
            }
            // The topic exists (created on the brokers' internal listener); only the client's path is dark.
            cluster.createTopic("dark-new", 1, 3);

            long start = System.nanoTime();
            KafkaMetadataTimeoutException e = assertThrows(KafkaMetadataTimeoutException.class,
                    () -> m.awaitTopic("dark-new", m.newDeadline(Duration.ofSeconds(4))));
            long tookMs = millisSince(start);
            report("dark: the unknown topic's wait ended after %s ms: %s", tookMs, e.getMessage());
            assertTrue(tookMs >= 3_990 && tookMs < 4_000 + 1_000, "took " + tookMs + " ms");
            assertTrue(e.getMessage().contains("dark-new"), e.getMessage());
            assertEquals(dev.kmeta.metadata.Diagnosis.Cause.BROKERS_UNREACHABLE, e.diagnosis().cause(),
                    "the timeout says why: " + e.getMessage() + " " + e.diagnosis().evidence());
            // What is known stays usable: a send to a known partition goes on from the cache.
            assertEquals(2, m.awaitTopic("dark", m.newDeadline(Duration.ZERO)).partitionCount("dark"));
            int v = m.requestUpdate();
            start = System.nanoTime();
            assertThrows(TimeoutException.class, () -> m.awaitUpdate(v, m.newDeadline(Duration.ofSeconds(1))));
            tookMs = millisSince(start);
            assertTrue(tookMs >= 990 && tookMs < 1_000 + 1_000, "took " + tookMs + " ms");
            assertTrue(attempts(m) > attemptsBefore, "the sender kept trying: " + m.evidence().records());
            assertNotNull(m.evidence().summary(), "the sender saw the problem");

            for (int id : cluster.brokerIds()) {
                cluster.proxy(id).pass();
            }
            long restored = System.nanoTime();
            Cluster c = m.awaitTopic("dark-new", m.newDeadline(Duration.ofSeconds(30)));
            report("dark: the client recovered %s ms after the proxies passed again", millisSince(restored));
            assertEquals(1, c.partitionCount("dark-new"));
            assertLeaderAsAdminSays(cluster, c, "dark-new", 0);
            int v2 = m.requestUpdate();
            m.awaitUpdate(v2, m.newDeadline(Duration.ofSeconds(10)));
            cluster.createTopic("dark-after", 2, 3);
            assertEquals(2, m.awaitTopic("dark-after", m.newDeadline(Duration.ofSeconds(30))).partitionCount("dark-after"));
        }
    }

    @Test
    void connectionsResetWhileASendWaitsTheClientReconnectsAndTheWaitSucceeds() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("reset", 3, 3);
        try (KafkaMetadata m = client()) {
            m.awaitTopic("reset", m.newDeadline(Duration.ofSeconds(30)));
            int leader = cluster.leader("reset", 0);
            FaultProxy leaderProxy = cluster.proxy(leader);
            long acceptedBefore = 0;
            for (int id : cluster.brokerIds()) {
                // latency keeps each metadata request on the wire for a while, so the reset meets one in flight
                cluster.proxy(id).latencyMs(300);
                acceptedBefore += cluster.proxy(id).acceptedConnections();
            }
            CompletableFuture<Cluster> send = onNewThread("reset-send",
                    () -> m.awaitTopic("reset-late", m.newDeadline(Duration.ofSeconds(60))));
            await().atMost(Duration.ofSeconds(10)).until(() -> m.stats().waitersNow() == 1);
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                    .until(() -> m.state() == RefreshState.IN_FLIGHT);
            long failedBefore = m.stats().requestsFailed();
            leaderProxy.resetAll();
            for (int id : cluster.brokerIds()) {
                cluster.proxy(id).resetAll(); // wherever the client's connections are
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> m.stats().requestsFailed() > failedBefore);
            assertFalse(send.isDone(), "the send still waits: a reset is not its end");

            for (int id : cluster.brokerIds()) {
                cluster.proxy(id).latencyMs(0);
            }
            cluster.createTopic("reset-late", 2, 3);
            Cluster c = send.get(30, TimeUnit.SECONDS);
            assertEquals(2, c.partitionCount("reset-late"));
            long acceptedAfter = 0;
            for (int id : cluster.brokerIds()) {
                acceptedAfter += cluster.proxy(id).acceptedConnections();
            }
            assertTrue(acceptedAfter > acceptedBefore, "the client reconnected");
            // A producer that lost its connection to the leader invalidates; the refresh gets through.
            m.invalidate("reset", 0);
            int v = m.requestUpdate();
            m.awaitUpdate(v, m.newDeadline(Duration.ofSeconds(10)));
            assertLeaderAsAdminSays(cluster, m.fetch(), "reset", 0);
        }
    }
}
