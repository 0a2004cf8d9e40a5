package dev.kmeta.examples;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.Diagnosis.Cause;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import dev.kmeta.testkit.TestClients;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.testkit.TestClients.millisSince;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Records that wait after {@code send()} returned end with their partition's diagnosis, on three real brokers behind
 * fault proxies (each broker advertises its proxy; {@link KafkaCluster#bootstrapServers()} is their real ports):
 * a leader whose advertised address nothing listens on (the bootstrap works), a partition whose only replica
 * stopped, a leader blackholed after it answered; and {@link ExampleProducer#close(Duration)} and {@code close()}
 * are bounded however the records are stuck. Times to fail are printed as {@code [measured]}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExampleProducerDiagnosisTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(3).withProxies());
    /** How late after its bound a failure or a close may come (a shared 2-core machine). */
    private static final long TOLERANCE_MS = 1_000;
    /** The producers' network threads, whose run-queue time a bound excuses. */
    private final MachineTime machine = new MachineTime();

    @BeforeEach
    @AfterEach
    void healthyCluster() {
        KafkaCluster cluster = KAFKA.cluster();
        for (int id : cluster.brokerIds()) {
            cluster.proxy(id).pass().resetAll();
            if (!cluster.runningBrokerIds().contains(id)) {
                cluster.startBroker(id);
            }
        }
    }

    private static Map<String, Object> props(String bootstrap) {
        Map<String, Object> p = TestClients.props(bootstrap, "diagnosis");
        p.put("reconnect.backoff.ms", 50);
        p.put("reconnect.backoff.max.ms", 200);
        p.put("request.timeout.ms", 1_500);
        p.put("delivery.timeout.ms", 30_000);
        p.put("max.block.ms", 3_000);
        return p;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The record's failure, waited for at most 30 s. */
    private static Throwable failure(CompletableFuture<ExampleProducer.Ack> f) {
        return assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS)).getCause();
    }

    /**
     * Not early, and late by at most the tolerance plus what the machine took meanwhile from the test thread and the
     * producer's network thread (run queue) and the JVM (GC): {@link MachineTime}.
     */
    private static void assertWithin(long tookMs, long boundMs, MachineTime.Span span, String what) {
        assertTrue(tookMs >= boundMs - 100, what + " took " + tookMs + " ms for a bound of " + boundMs + " ms");
        MachineTime.assertAtMost(tookMs, boundMs, TOLERANCE_MS, span, what);
    }

    /**
     * Issue 14 item 1: before, send() returned at once (the leader is "known") and the record failed after
     * delivery.timeout.ms with a bare "Expiring". Now it fails at max.block.ms, naming the cause, the broker and the
     * address it advertises.
     */
    @Test
    void aLeaderAdvertisedAtAClosedPortFailsTheRecordWithinMaxBlockMs() {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("closed-port", 1, 1);
        int leader = cluster.leader("closed-port", 0);
        cluster.proxy(leader).refuse(); // what the broker advertises: nothing listens there
        String advertised = "127.0.0.1:" + cluster.proxy(leader).port();
        try (ExampleProducer producer = ExampleProducer.create(props(cluster.bootstrapServers()), machine)) {
            MachineTime.Span span = machine.begin();
            long start = System.nanoTime();
            CompletableFuture<ExampleProducer.Ack> f = producer.send("closed-port", 0, null, bytes("v"));
            long blockedMs = millisSince(start);
            MachineTime.assertAtMost(blockedMs, 0, 2_000, span, "send() returned once the leader was known: it");

            Throwable e = failure(f);
            long tookMs = millisSince(start);
            TestClients.report("%s", "advertised listener at a closed port: failed after " + tookMs + " ms: "
                    + e.getMessage());
            assertWithin(tookMs, 3_000, span, "the record's failure");
            KafkaMetadataTimeoutException timeout = assertInstanceOf(KafkaMetadataTimeoutException.class, e);
            assertInstanceOf(TimeoutException.class, e, "Kafka catch blocks work");
            assertEquals(Cause.ADVERTISED_LISTENER_UNREACHABLE, timeout.diagnosis().cause(), e.getMessage());
            assertTrue(e.getMessage().startsWith("Partition 0 of topic closed-port: 1 record(s) not sent within "
                    + "max.block.ms=3000: ADVERTISED_LISTENER_UNREACHABLE: broker " + leader + " advertises "
                    + advertised + ", unreachable from here: connection refused or timed out"), e.getMessage());
            assertTrue(e.getMessage().contains("fix advertised.listeners"), e.getMessage());
            assertEquals(Cause.ADVERTISED_LISTENER_UNREACHABLE, Diagnosis.from(e).orElseThrow().cause());

            Diagnosis now = producer.metadata().diagnose("closed-port", 0);
            assertEquals(Cause.ADVERTISED_LISTENER_UNREACHABLE, now.cause(), String.valueOf(now));
            assertTrue(now.seen().contains("broker " + leader + " advertises " + advertised), now.seen());
            assertTrue(producer.metadata().evidence().records().stream()
                    .anyMatch(r -> r.isBootstrap() && r.everAnswered()), "the bootstrap answered");

            // A later send, while it lasts, gets its own max.block.ms.
            MachineTime.Span secondSpan = machine.begin();
            long again = System.nanoTime();
            Throwable second = failure(producer.send("closed-port", 0, null, bytes("again")));
            assertWithin(millisSince(again), 3_000, secondSpan, "the second record's failure");
            assertInstanceOf(KafkaMetadataTimeoutException.class, second);
            assertEquals(2, producer.stats().recordsFailed());
        }
    }

    /** The early failure is a wait, not a verdict: a leader that moves to a reachable broker takes the record. */
    @Test
    void aLeaderMoveDuringTheWaitLetsTheRecordThrough() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("moving", 1, 3);
        TopicPartition tp = new TopicPartition("moving", 0);
        int oldLeader = cluster.leader("moving", 0);
        int newLeader = (oldLeader + 1) % 3;
        cluster.proxy(oldLeader).refuse();
        Map<String, Object> props = props(cluster.bootstrapServers());
        props.put("max.block.ms", 30_000);
        try (ExampleProducer producer = ExampleProducer.create(props, machine)) {
            CompletableFuture<ExampleProducer.Ack> f = producer.send("moving", 0, null, bytes("v"));
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                Diagnosis d = producer.metadata().diagnose("moving", 0);
                return d != null && d.cause() == Cause.ADVERTISED_LISTENER_UNREACHABLE;
            });
            assertFalse(f.isDone(), "the record waits");

            List<Integer> replicas = List.of(newLeader, oldLeader, (oldLeader + 2) % 3);
            cluster.admin().alterPartitionReassignments(Map.of(tp,
                    Optional.of(new NewPartitionReassignment(replicas)))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                cluster.admin().electLeaders(ElectionType.PREFERRED, Set.of(tp)).partitions()
                        .get(30, TimeUnit.SECONDS);
                return cluster.leader("moving", 0) == newLeader;
            });

            ExampleProducer.Ack ack = f.get(30, TimeUnit.SECONDS);
            assertEquals(newLeader, ack.leaderId(), "acked by the new, reachable leader");
            assertNull(producer.metadata().diagnose("moving", 0), "nothing speaks against the new leader");
        }
    }

    /** A record queued for a partition whose only replica stopped expires with LEADER_NOT_AVAILABLE, not bare. */
    @Test
    void aRecordForAPartitionThatLostItsOnlyReplicaExpiresWithLeaderNotAvailable() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("lonely", 1, 1);
        int owner = cluster.leader("lonely", 0);
        Map<String, Object> props = props(cluster.proxiedBootstrapServers());
        props.put("delivery.timeout.ms", 8_000); // the partition is seen leaderless within about 1 s
        try (ExampleProducer producer = ExampleProducer.create(props, machine)) {
            producer.send("lonely", 0, null, bytes("warm-up")).get(30, TimeUnit.SECONDS);
            cluster.proxy(owner).blackhole(); // holds the next record in flight while its broker goes away
            MachineTime.Span span = machine.begin();
            long start = System.nanoTime();
            CompletableFuture<ExampleProducer.Ack> f = producer.send("lonely", 0, null, bytes("v"));
            cluster.stopBroker(owner);
            await().atMost(Duration.ofSeconds(7)).until(() -> {
                var p = producer.metadata().fetch().partition("lonely", 0);
                return p != null && !p.hasLeader();
            });
            TestClients.report("%s", "leaderless partition: seen without a leader " + millisSince(start)
                    + " ms after the send");
            assertFalse(f.isDone(), "the record waits for a leader");

            Throwable e = failure(f);
            long tookMs = millisSince(start);
            TestClients.report("%s", "leaderless partition: failed after " + tookMs + " ms: " + e.getMessage());
            assertWithin(tookMs, 8_000, span, "the record's expiry");
            assertInstanceOf(TimeoutException.class, e);
            assertTrue(e.getMessage().startsWith("Expiring 1 record(s) for lonely-0: not acknowledged within "
                    + "delivery.timeout.ms=8000: LEADER_NOT_AVAILABLE: the partition has had no leader (replicas ["
                    + owner + "]"), e.getMessage());
            assertEquals(Cause.LEADER_NOT_AVAILABLE, Diagnosis.from(e).orElseThrow().cause());
        }
    }

    /**
     * A leader that answered before and is blackholed now keeps the ordinary retries (no early failure) and the
     * record expires at delivery.timeout.ms with BROKERS_UNREACHABLE, the broker and its address.
     */
    @Test
    void aRecordForALeaderBlackholedAfterItAnsweredExpiresWithBrokersUnreachable() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("dark", 1, 3, Map.of("min.insync.replicas", "2"));
        int leader = cluster.leader("dark", 0);
        String address = "127.0.0.1:" + cluster.proxy(leader).port();
        Map<String, Object> props = props(cluster.proxiedBootstrapServers());
        props.put("delivery.timeout.ms", 6_000); // twice max.block.ms, 4 request timeouts
        try (ExampleProducer producer = ExampleProducer.create(props, machine)) {
            producer.send("dark", 0, null, bytes("warm-up")).get(30, TimeUnit.SECONDS);
            cluster.proxy(leader).blackhole();
            MachineTime.Span span = machine.begin();
            long start = System.nanoTime();
            CompletableFuture<ExampleProducer.Ack> f = producer.send("dark", 0, null, bytes("v"));

            Throwable e = failure(f);
            long tookMs = millisSince(start);
            TestClients.report("%s", "leader blackholed after it answered: failed after " + tookMs + " ms: "
                    + e.getMessage());
            assertWithin(tookMs, 6_000, span, "the record's expiry (not max.block.ms: ordinary retries)");
            KafkaMetadataTimeoutException timeout = assertInstanceOf(KafkaMetadataTimeoutException.class, e);
            assertEquals(Cause.BROKERS_UNREACHABLE, timeout.diagnosis().cause(), e.getMessage());
            assertTrue(e.getMessage().startsWith("Expiring 1 record(s) for dark-0: not acknowledged within "
                    + "delivery.timeout.ms=6000: BROKERS_UNREACHABLE: broker " + leader + " at " + address
                    + ", the leader of partition 0, answered before and cannot be reached now"), e.getMessage());
            assertTrue(producer.stats().retries() >= 1, "retried: " + producer.stats());
        }
    }

    /**
     * Issue 14 item 6: close() waited delivery.timeout.ms (120 s by default) for a record that could not go out.
     * close(Duration) waits its timeout, close() max.block.ms; the stuck record fails saying the producer closed.
     */
    @Test
    void closeIsBoundedWhileARecordIsStuckForAnUnreachableLeader() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("stuck", 1, 3, Map.of("min.insync.replicas", "2"));
        int leader = cluster.leader("stuck", 0);
        Map<String, Object> props = props(cluster.proxiedBootstrapServers());
        props.put("max.block.ms", 2_500);
        props.put("request.timeout.ms", 20_000); // the record stays in flight for the whole close

        ExampleProducer timed = ExampleProducer.create(props, machine);
        CompletableFuture<ExampleProducer.Ack> first = stuckRecord(timed, cluster, leader);
        MachineTime.Span span = machine.begin();
        long start = System.nanoTime();
        timed.close(Duration.ofSeconds(2));
        long closeMs = millisSince(start);
        TestClients.report("%s", "close(2 s) with a stuck record returned after " + closeMs + " ms");
        assertWithin(closeMs, 2_000, span, "close(Duration.ofSeconds(2))");
        Throwable e = failure(first);
        assertInstanceOf(KafkaException.class, e);
        assertTrue(e.getMessage().contains("closed before the record was acknowledged: close waited 2000 ms"),
                e.getMessage());
        cluster.proxy(leader).pass().resetAll();

        ExampleProducer plain = ExampleProducer.create(props, machine);
        CompletableFuture<ExampleProducer.Ack> second = stuckRecord(plain, cluster, leader);
        span = machine.begin();
        start = System.nanoTime();
        plain.close();
        closeMs = millisSince(start);
        TestClients.report("%s", "close() (max.block.ms=2500) with a stuck record returned after " + closeMs
                + " ms");
        assertWithin(closeMs, 2_500, span, "close()");
        assertTrue(failure(second).getMessage().contains("close waited 2500 ms"));
    }

    /** Sends a warm-up record, blackholes the leader, and sends one that stays in flight. */
    private static CompletableFuture<ExampleProducer.Ack> stuckRecord(ExampleProducer producer, KafkaCluster cluster,
                                                                     int leader) throws Exception {
        producer.send("stuck", 0, null, bytes("warm-up")).get(30, TimeUnit.SECONDS);
        cluster.proxy(leader).blackhole();
        CompletableFuture<ExampleProducer.Ack> f = producer.send("stuck", 0, null, bytes("stuck"));
        assertFalse(f.isDone());
        return f;
    }

    /**
     * A record whose topic was deleted under it cannot go out within any timeout: close() fails it at once (the
     * topic was seen moments before, so the diagnosis is TOPIC_PROPAGATING, which says "or deleted").
     */
    @Test
    void closeFailsAtOnceARecordWhosePartitionVanished() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("vanishing", 1, 3);
        int leader = cluster.leader("vanishing", 0);
        ExampleProducer producer = ExampleProducer.create(props(cluster.proxiedBootstrapServers()), machine);
        try {
            producer.send("vanishing", 0, null, bytes("warm-up")).get(30, TimeUnit.SECONDS);
            cluster.proxy(leader).blackhole(); // holds the record in flight while the topic goes
            CompletableFuture<ExampleProducer.Ack> f = producer.send("vanishing", 0, null, bytes("v"));
            cluster.deleteTopic("vanishing");
            cluster.proxy(leader).pass().resetAll(); // the retry finds the topic gone
            await().atMost(Duration.ofSeconds(20)).until(() -> producer.metadata().fetch().topic("vanishing") == null);
            assertFalse(f.isDone(), "the record waits for a partition that no longer exists");
            assertNotEquals(null, producer.metadata().diagnose("vanishing", 0));

            MachineTime.Span span = machine.begin();
            long start = System.nanoTime();
            producer.close(Duration.ofSeconds(30));
            long closeMs = millisSince(start);
            TestClients.report("%s", "close(30 s) with a record for a deleted topic returned after " + closeMs
                    + " ms");
            MachineTime.assertAtMost(closeMs, 0, 2_000, span, "close did not wait for what cannot go out: it");
            Throwable e = failure(f);
            assertInstanceOf(KafkaException.class, e);
            // An answer showed the topic seconds before it was deleted: the facts of a topic still propagating too.
            assertTrue(e.getMessage().contains("the brokers call the record's topic unknown"), e.getMessage());
            assertTrue(e.getMessage().contains("or was deleted as soon as created"), e.getMessage());
            assertEquals(Cause.TOPIC_PROPAGATING, Diagnosis.from(e).orElseThrow().cause(), e.getMessage());
        } finally {
            producer.close();
        }
    }
}
