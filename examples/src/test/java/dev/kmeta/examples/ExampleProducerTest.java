package dev.kmeta.examples;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import dev.kmeta.testkit.TestClients;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The example producer against three real brokers (plus a controller) behind fault proxies: every record acked and in
 * order, a leader stopped under load, a missing topic, and the one budget of a send.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExampleProducerTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(3).withProxies());

    @BeforeEach
    @AfterEach
    void healthyCluster() {
        KafkaCluster cluster = KAFKA.cluster();
        for (int id : cluster.brokerIds()) {
            cluster.proxy(id).pass();
            if (!cluster.runningBrokerIds().contains(id)) {
                cluster.startBroker(id);
            }
        }
    }

    private static Map<String, Object> props() {
        Map<String, Object> p = TestClients.props(KAFKA.cluster().proxiedBootstrapServers(), "example");
        p.put("reconnect.backoff.ms", 50);
        p.put("reconnect.backoff.max.ms", 200);
        p.put("request.timeout.ms", 5_000);
        p.put("delivery.timeout.ms", 30_000);
        return p;
    }

    private static void createTopic(String name, int partitions) {
        KAFKA.cluster().createTopic(name, partitions, 3, Map.of("min.insync.replicas", "2"));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static long endOffset(String topic, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        return KAFKA.cluster().admin().listOffsets(Map.of(tp, OffsetSpec.latest())).all()
                .get(30, TimeUnit.SECONDS).get(tp).offset();
    }

    @Test
    void everyRecordIsAckedInSendOrderPerPartition() throws Exception {
        createTopic("orders", 6);
        try (ExampleProducer producer = ExampleProducer.create(props())) {
            List<List<CompletableFuture<ExampleProducer.Ack>>> sent = new ArrayList<>();
            for (int p = 0; p < 6; p++) {
                sent.add(new ArrayList<>());
            }
            for (int i = 0; i < 600; i++) {
                int p = i % 6;
                sent.get(p).add(producer.send("orders", p, bytes("k" + i), bytes("v" + i)));
            }
            for (int p = 0; p < 6; p++) {
                long previous = -1;
                int leader = KAFKA.cluster().leader("orders", p);
                for (CompletableFuture<ExampleProducer.Ack> f : sent.get(p)) {
                    ExampleProducer.Ack ack = f.get(30, TimeUnit.SECONDS);
                    assertEquals(p, ack.partition());
                    assertTrue(ack.offset() > previous, "offsets follow send order on partition " + p);
                    assertEquals(leader, ack.leaderId(), "acked by the leader");
                    previous = ack.offset();
                }
                // A produce request that timed out on a loaded machine is retried, and this producer is not
                // idempotent: the retry may write the records again. Without retries the log is exactly the 100.
                long end = endOffset("orders", p);
                assertTrue(previous >= 99 && end >= 100 && previous < end, "offsets up to " + previous + ", log end "
                        + end + " on partition " + p);
                if (producer.stats().retries() == 0) {
                    assertEquals(99, previous, "100 records, offsets 0..99 on partition " + p);
                    assertEquals(100, end, "the log holds exactly the 100 records of partition " + p);
                }
            }
            ExampleProducer.Stats stats = producer.stats();
            assertEquals(600, stats.recordsSent());
            assertEquals(600, stats.recordsAcked());
            assertEquals(0, stats.recordsFailed());
            assertTrue(stats.metadataWaitP99Us() >= stats.metadataWaitP50Us());
        }
    }

    @Test
    void aCleanStopOfTheLeaderUnderLoadLosesNothing() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        createTopic("failover", 3);
        int oldLeader = cluster.leader("failover", 0);
        try (ExampleProducer producer = ExampleProducer.create(props())) {
            List<CompletableFuture<ExampleProducer.Ack>> futures = new ArrayList<>();
            AtomicBoolean sending = new AtomicBoolean(true);
            Thread load = new Thread(() -> {
                for (int i = 0; sending.get(); i++) {
                    futures.add(producer.send("failover", i % 4 == 3 ? 1 : 0, null, bytes("v" + i)));
                    if (i % 10 == 9) {
                        LockSupport.parkNanos(5_000_000); // pacing (~2000 records/s), not synchronization
                    }
                }
            }, "it-load");
            // The list is read only after load.join().
            load.start();
            try {
                await().atMost(Duration.ofSeconds(20)).until(() -> producer.stats().recordsAcked() >= 200);
                cluster.stopBroker(oldLeader); // controlled shutdown: leadership moves away first
                long ackedAtStop = producer.stats().recordsAcked();
                await().atMost(Duration.ofSeconds(30)).until(() -> producer.stats().recordsAcked() >= ackedAtStop + 500);
            } finally {
                sending.set(false);
                load.join(10_000);
            }
            assertFalse(load.isAlive(), "the load thread ended (it may be blocked in send): its list is complete");
            int newLeader = -1;
            for (CompletableFuture<ExampleProducer.Ack> f : futures) {
                ExampleProducer.Ack ack = f.get(30, TimeUnit.SECONDS); // throws if any record failed
                if (ack.partition() == 0) {
                    newLeader = ack.leaderId();
                }
            }
            assertNotEquals(oldLeader, newLeader, "partition 0's last records were acked by the new leader");
            ExampleProducer.Stats stats = producer.stats();
            assertEquals(futures.size(), stats.recordsAcked(), "every record acked: " + stats);
            assertEquals(0, stats.recordsFailed());
            // The producer noticed the stale leader: a KIP-951 hint (NOT_LEADER_OR_FOLLOWER with the new leader, if a
            // request reached the old leader after it resigned) or a disconnect (it closed first), which invalidates.
            // Which one depends on the broker's timing; aLeaderMovedWhileTheOldOneLivesIsFollowedThroughItsHint
            // covers the hint deterministically.
            assertTrue(stats.leaderHintsFed() + stats.invalidations() >= 1, stats.toString());
            assertTrue(endOffset("failover", 0) >= stats.recordsAcked() - countOn(futures, 1));
            TestClients.report("%s", "failover: " + futures.size() + " records, " + stats);
        }
    }

    @Test
    void aLeaderMovedWhileTheOldOneLivesIsFollowedThroughItsHint() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        createTopic("moved", 1);
        TopicPartition tp = new TopicPartition("moved", 0);
        try (ExampleProducer producer = ExampleProducer.create(props())) {
            int oldLeader = producer.send("moved", 0, null, bytes("before")).get(30, TimeUnit.SECONDS).leaderId();
            int newLeader = (oldLeader + 1) % 3;
            // Same replicas, another preferred leader, then a preferred election: the old leader stays up, as a
            // follower that answers NOT_LEADER_OR_FOLLOWER with the current leader (KIP-951).
            List<Integer> replicas = List.of(newLeader, oldLeader, (oldLeader + 2) % 3);
            cluster.admin().alterPartitionReassignments(Map.of(tp,
                    Optional.of(new NewPartitionReassignment(replicas)))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                cluster.admin().electLeaders(ElectionType.PREFERRED, Set.of(tp)).partitions()
                        .get(30, TimeUnit.SECONDS);
                return cluster.leader("moved", 0) == newLeader;
            });
            // The new leader itself too: one still unaware that it leads would refuse the retry, and the example
            // then (rightly) asks for a refresh - not what this test is about.
            cluster.awaitLeaderEverywhere("moved", 0, newLeader);
            long metadataRequestsBefore = producer.metadata().stats().requestsSent();

            ExampleProducer.Ack ack = producer.send("moved", 0, null, bytes("after")).get(30, TimeUnit.SECONDS);

            assertEquals(newLeader, ack.leaderId(), "the retry went to the leader the hint named");
            // At least one: a metadata answer naming the old leader could land between the refusal and the hint
            // (then the old leader is asked again and hints again). The ack's leader shows the hint was followed.
            assertTrue(producer.stats().leaderHintsFed() >= 1, producer.stats().toString());
            assertTrue(producer.metadata().stats().leaderHintsApplied() >= 1);
            // Ignoring the hint would mean an invalidation and a metadata request to find the new leader.
            assertEquals(0, producer.stats().invalidations(), producer.stats().toString());
            assertEquals(metadataRequestsBefore, producer.metadata().stats().requestsSent());
            assertEquals(2, endOffset("moved", 0));
        }
    }

    @Test
    void aProducerWhoseThreadCannotStartClosesItsClient() {
        AtomicReference<NetworkLoop> loop = new AtomicReference<>();
        // What Thread.start throws when the JVM has no thread to give: an Error, not a RuntimeException.
        OutOfMemoryError noThread = new OutOfMemoryError("unable to create native thread: possibly out of memory");
        OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> ExampleProducer.create(props(), r -> {
            loop.set((NetworkLoop) r);
            return new Thread(r, "never-started") {
                @Override
                public void start() {
                    throw noThread;
                }
            };
        }));
        assertSame(noThread, e);
        assertFalse(loop.get().clientActive(), "the client (and its selector) was closed");
    }

    /**
     * The futures complete on the producer's network thread, which also runs kmeta: a callback that waited there
     * (for metadata, for buffer room, for close() to join its own thread) would freeze the producer. Each step below
     * waits at most 10 s; without the zero budget and the non-waiting close, the first one blocks max.block.ms
     * (30 s) and the last delivery.timeout.ms + 5 s.
     */
    @Test
    void aCallbackThatSendsOrClosesDoesNotFreezeTheProducer() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        createTopic("callbacks", 1);
        Map<String, Object> props = props();
        props.put("max.block.ms", 30_000);
        try (ExampleProducer producer = ExampleProducer.create(props)) {
            producer.send("callbacks", 0, null, bytes("warm-up")).get(30, TimeUnit.SECONDS);
            int leader = cluster.leader("callbacks", 0);
            cluster.proxy(leader).blackhole(); // holds the next record in flight while its callbacks are attached
            CompletableFuture<ExampleProducer.Ack> first = producer.send("callbacks", 0, null, bytes("first"));
            CompletableFuture<String> callbackThread = first.thenApply(ack -> Thread.currentThread().getName());
            CompletableFuture<CompletableFuture<ExampleProducer.Ack>> miss = first.thenApply(
                    ack -> producer.send("not-in-the-cache", 0, null, bytes("miss")));
            CompletableFuture<CompletableFuture<ExampleProducer.Ack>> hit = first.thenApply(
                    ack -> producer.send("callbacks", 0, null, bytes("hit")));
            // The hit's record is acked on the network thread too; its callback closes the producer there.
            CompletableFuture<ExampleProducer.Ack> closedFromCallback = hit.thenCompose(f -> f).thenApply(ack -> {
                producer.close();
                return ack;
            });
            assertTrue(!first.isDone(), "the record is held in flight");
            cluster.proxy(leader).pass().resetAll();

            assertTrue(callbackThread.get(30, TimeUnit.SECONDS).startsWith("example-producer-network-thread"),
                    callbackThread.join());
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> miss.get(10, TimeUnit.SECONDS).get(0, TimeUnit.SECONDS), "a miss fails at once");
            assertInstanceOf(KafkaMetadataTimeoutException.class, e.getCause());
            assertEquals(0, closedFromCallback.get(10, TimeUnit.SECONDS).partition(), "a hit is sent and acked");

            // close() from the callback returned at once; the network thread then ended and closed kmeta.
            await().atMost(Duration.ofSeconds(10)).until(() -> producer.metadata().state() == RefreshState.CLOSED);
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> producer.send("callbacks", 0, null, bytes("late")).get(0, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, refused.getCause());
            assertEquals(3, producer.stats().recordsAcked(), producer.stats().toString());
        }
    }

    /**
     * A callback that holds the network thread past close()'s waits: close() must not clean up beside the running
     * thread (its queues are confined to it, client.close() would race its poll). It releases kmeta's waiters and
     * returns; the thread closes the client when the callback lets it go. close() waits max.block.ms (3 s here; the
     * default 60 s would only make the test slower) plus its grace (1 s here; 5 s by default).
     */
    @Test
    void closeWhileACallbackHoldsTheNetworkThreadLeavesTheCleanupToThatThread() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        createTopic("held-callback", 1);
        Map<String, Object> props = props();
        props.put("delivery.timeout.ms", 2_000);
        props.put("max.block.ms", 3_000); // close()'s wait
        AtomicReference<NetworkLoop> loop = new AtomicReference<>();
        ExampleProducer producer = ExampleProducer.create(props, r -> {
            loop.set((NetworkLoop) r);
            return new Thread(r);
        }, 1_000);
        CountDownLatch letGo = new CountDownLatch(1);
        try {
            producer.send("held-callback", 0, null, bytes("warm-up")).get(30, TimeUnit.SECONDS);
            int leader = cluster.leader("held-callback", 0);
            cluster.proxy(leader).blackhole(); // holds the record in flight while its callback is attached
            CompletableFuture<ExampleProducer.Ack> held = producer.send("held-callback", 0, null, bytes("held"));
            CompletableFuture<String> inCallback = new CompletableFuture<>();
            held.whenComplete((ack, error) -> {
                inCallback.complete(Thread.currentThread().getName());
                awaitUninterruptibly(letGo);
            });
            cluster.proxy(leader).pass().resetAll();
            assertTrue(inCallback.get(30, TimeUnit.SECONDS).startsWith("example-producer-network-thread"));

            producer.close(); // gives up waiting for the held thread

            assertEquals(RefreshState.CLOSED, producer.metadata().state(), "kmeta's waiters released all the same");
            assertTrue(loop.get().clientActive(), "the client is not closed beside the thread still polling");
        } finally {
            letGo.countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !loop.get().clientActive());
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // a test latch: wait on
            }
        }
    }

    private static long countOn(List<CompletableFuture<ExampleProducer.Ack>> futures, int partition) {
        return futures.stream().filter(f -> f.join().partition() == partition).count();
    }

    @Test
    void aMissingTopicFailsTheSendByItsDeadlineWithADiagnosis() {
        Map<String, Object> props = props();
        props.put("max.block.ms", 1_500);
        MachineTime machine = new MachineTime();
        try (ExampleProducer producer = ExampleProducer.create(props, machine)) {
            MachineTime.Span span = machine.begin();
            long start = System.nanoTime();
            CompletableFuture<ExampleProducer.Ack> f = producer.send("no-such-topic", 0, null, bytes("v"));
            long blockedMs = (System.nanoTime() - start) / 1_000_000;
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> f.get(0, TimeUnit.SECONDS), "send() returns a failed future once the budget is spent");
            KafkaMetadataTimeoutException timeout = assertInstanceOf(KafkaMetadataTimeoutException.class,
                    e.getCause());
            assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, timeout.diagnosis().cause(), timeout.getMessage());
            assertTrue(timeout.getMessage().contains("no-such-topic"), timeout.getMessage());
            // It blocked for the budget, not more than a little beyond it (3 s, plus what a loaded 2-core machine
            // took from this thread and the network thread meanwhile: MachineTime).
            assertTrue(blockedMs >= 1_400, "blocked " + blockedMs + " ms for a 1500 ms budget");
            MachineTime.assertAtMost(blockedMs, 1_500, 3_000, span, "the send blocked: it");
            assertEquals(1, producer.stats().recordsFailed());
        }
    }

    @Test
    void theMetadataWaitAndTheBufferWaitShareOneDeadline() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        createTopic("held", 3);
        Map<String, Object> props = props();
        props.put("max.block.ms", 6_000);
        props.put("request.timeout.ms", 20_000); // the blackholed request stays in flight for the whole test
        props.put(ProducerSettings.BUFFER_RECORDS, 1);
        MachineTime machine = new MachineTime();
        try (ExampleProducer producer = ExampleProducer.create(props, machine)) {
            for (int p = 0; p < 3; p++) { // connect to the leaders while all is well
                producer.send("held", p, null, bytes("warm-up")).get(30, TimeUnit.SECONDS);
            }
            int blackholed = cluster.leader("held", 0);
            cluster.proxy(blackholed).blackhole();
            CompletableFuture<ExampleProducer.Ack> held = producer.send("held", 0, null, bytes("held"));
            // The only buffer slot is now taken by a record whose leader never answers. A topic appears in 2 s.
            CompletableFuture<Void> created = CompletableFuture.runAsync(() -> createTopic("late", 1),
                    CompletableFuture.delayedExecutor(2, TimeUnit.SECONDS));

            MachineTime.Span span = machine.begin();
            long start = System.nanoTime();
            CompletableFuture<ExampleProducer.Ack> late = producer.send("late", 0, null, bytes("late"));
            long blockedMs = (System.nanoTime() - start) / 1_000_000;

            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> late.get(0, TimeUnit.SECONDS));
            TimeoutException timeout = assertInstanceOf(TimeoutException.class, e.getCause());
            Matcher m = Pattern.compile("\\((\\d+) ms went to the metadata wait\\)").matcher(timeout.getMessage());
            assertTrue(m.find() && timeout.getMessage().contains("No room in the buffer"), timeout.getMessage());
            long metadataMs = Long.parseLong(m.group(1));
            assertTrue(metadataMs >= 1_900, "the metadata wait lasted until the topic existed: " + metadataMs);
            // One budget: the whole send blocked about max.block.ms (1.5 s tolerance plus what a loaded 2-core
            // machine took from the waiting threads meanwhile: MachineTime), and the buffer wait got only what the
            // metadata wait left; a fresh budget would have given it 6000 ms.
            assertTrue(blockedMs >= 5_900, "blocked " + blockedMs + " ms for a 6000 ms budget");
            MachineTime.assertAtMost(blockedMs, 6_000, 1_500, span, "the send blocked: it");
            MachineTime.assertAtMost(blockedMs - metadataMs, 5_000, 0, span, "the buffer wait");
            created.get(30, TimeUnit.SECONDS);

            // A send waiting for room is released at once by close(), which then waits for the held record.
            CompletableFuture<CompletableFuture<ExampleProducer.Ack>> waiting = new CompletableFuture<>();
            Thread waiter = new Thread(() -> waiting.complete(producer.send("held", 1, null, bytes("waits"))));
            waiter.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
            CompletableFuture<Void> closing = CompletableFuture.runAsync(producer::close);
            long closeStart = System.nanoTime();
            ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> waiting.get(5, TimeUnit.SECONDS).get(0, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, refused.getCause());
            long releasedMs = (System.nanoTime() - closeStart) / 1_000_000;
            assertTrue(releasedMs < 2_000, "released " + releasedMs + " ms after close began");
            assertTrue(!closing.isDone(), "close() waits for the held record");

            // The dark leader comes back; its dropped connection makes the producer invalidate and retry.
            cluster.proxy(blackholed).pass().resetAll();
            assertEquals(0, held.get(30, TimeUnit.SECONDS).partition());
            closing.get(30, TimeUnit.SECONDS);
            assertTrue(producer.stats().invalidations() >= 1, producer.stats().toString());
        }
    }

    /**
     * Issue 27's rule on the embedded route: a topic deleted and re-created with fewer partitions (new topic id) while
     * the application sends. Every record sent after the re-creation for a partition of the new topic is acked by it;
     * one for a partition the new topic lacks fails with kmeta's diagnosis within max.block.ms; a record sent while the
     * topic was gone is acked or fails with a diagnosis: none is left pending.
     */
    @Test
    void recreatedTopicWithFewerPartitions() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("recreated", 6, 1);
        Map<String, Object> p = props();
        p.put("max.block.ms", 2_000);
        p.put("delivery.timeout.ms", 8_000);
        List<CompletableFuture<ExampleProducer.Ack>> gone = new ArrayList<>();
        try (ExampleProducer producer = ExampleProducer.create(p)) {
            for (int i = 0; i < 6; i++) {
                producer.send("recreated", i, null, bytes("warm-up")).get(30, TimeUnit.SECONDS);
            }
            java.util.UUID oldId = producer.metadata().fetch().topic("recreated").topicId();
            cluster.deleteTopic("recreated");
            var window = java.util.concurrent.Executors.newFixedThreadPool(6);
            try {
                for (int i = 0; i < 6; i++) {
                    int partition = i;
                    gone.add(CompletableFuture.supplyAsync(() -> producer.send("recreated", partition, null,
                            bytes("while gone")), window).thenCompose(f -> f));
                }
                cluster.createTopic("recreated", 3, 1);
                // Setup, not a bound under test: on loaded cores the new topic takes a while to reach the brokers'
                // metadata (10 s was not enough at load ~25); ask for a refresh on each look.
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    producer.metadata().requestUpdate();
                    var t = producer.metadata().fetch().topic("recreated");
                    return t != null && t.topicId() != null && !t.topicId().equals(oldId);
                });
                for (int i = 0; i < 3; i++) {
                    ExampleProducer.Ack ack = producer.send("recreated", i, null, bytes("after")).get(10,
                            TimeUnit.SECONDS);
                    assertEquals(i, ack.partition());
                }
                long start = System.nanoTime();
                CompletableFuture<ExampleProducer.Ack> beyond = producer.send("recreated", 5, null, bytes("after"));
                Throwable e = assertThrows(ExecutionException.class, () -> beyond.get(30, TimeUnit.SECONDS))
                        .getCause();
                long failedMs = (System.nanoTime() - start) / 1_000_000;
                assertEquals(Diagnosis.Cause.PARTITION_OUT_OF_RANGE, Diagnosis.from(e).orElseThrow().cause(),
                        e.toString());
                assertTrue(failedMs <= 2_000 + 1_000, "failed within max.block.ms: " + failedMs + " ms");
                int acked = 0;
                for (int i = 0; i < gone.size(); i++) {
                    CompletableFuture<ExampleProducer.Ack> f = gone.get(i);
                    try {
                        f.get(8_000 + 2_000 + 5_000, TimeUnit.MILLISECONDS);
                        acked++;
                        assertTrue(i < 3, "only the new topic's partitions ack");
                    } catch (ExecutionException ex) {
                        assertTrue(Diagnosis.from(ex.getCause()).isPresent(), "failed with a diagnosis: " + ex);
                    }
                }
                TestClients.report("%s", "ExampleProducer, topic re-created 6 -> 3: of the 6 records sent while "
                        + "it was gone " + acked + " acked, " + (6 - acked) + " failed with a diagnosis; partition 5 "
                        + "after: " + Diagnosis.from(e).orElseThrow().cause() + " in " + failedMs + " ms");
            } finally {
                window.shutdownNow();
            }
        }
    }
}
