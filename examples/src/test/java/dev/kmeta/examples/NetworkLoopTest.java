package dev.kmeta.examples;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.sender.DrivenKafkaMetadata;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.FakeKafkaClient;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.ProduceResponseData.LeaderIdAndEpoch;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.time.Duration;

/**
 * The network loop's failover on fake brokers ({@link ThreeBrokers} on testkit's {@link FakeKafkaClient}) and fake
 * time, with a real driven kmeta on the same fake clock: no cluster, no sleeps; each test runs the loop pass by pass
 * on the test thread.
 */
class NetworkLoopTest {
    private static final long BACKOFF_MS = 100;
    private static final int MAX_PASSES = 1_000;

    private DrivenKafkaMetadata metadata;
    private ThreeBrokers brokers;
    private NetworkLoop loop;
    private final ProducerStats stats = new ProducerStats();

    @BeforeEach
    void start() {
        Map<String, Object> props = Map.of("bootstrap.servers", "localhost:9001", "client.id", "loop-test",
                "retry.backoff.ms", BACKOFF_MS, "allow.auto.create.topics", false);
        FakeKafkaClient client = new FakeKafkaClient();
        metadata = KafkaMetadata.builder(props).ticker(client::nanoTime).buildDriven();
        brokers = new ThreeBrokers(client.updater(metadata.metadataUpdater()));
        metadata.attach(client);
        loop = new NetworkLoop(client, new Metrics(), metadata, ProducerSettings.from(props), new Semaphore(100),
                stats, client.time());
    }

    @AfterEach
    void stop() {
        metadata.close();
    }

    /** Subscribes kmeta to the topic and runs the loop until the snapshot names every partition's leader. */
    private void knowLeaders(int partitions) {
        try {
            metadata.awaitTopic(ThreeBrokers.TOPIC, partitions - 1, metadata.newDeadline(Duration.ZERO)); // subscribes; no waiting here
        } catch (TimeoutException expected) {
            // the answer comes in the loop's polls below
        }
        runUntil(() -> metadata.fetch().partitionCount(ThreeBrokers.TOPIC) == partitions, "the topic's metadata");
    }

    private PendingRecord send(int partition) {
        PendingRecord r = new PendingRecord(ThreeBrokers.TOPIC, partition, null, new byte[] {1},
                brokers.client.nowMs(), 120_000);
        loop.enqueue(r);
        return r;
    }

    private void runUntil(java.util.function.BooleanSupplier done, String what) {
        for (int i = 0; i < MAX_PASSES; i++) {
            if (done.getAsBoolean()) {
                return;
            }
            loop.runOnce();
        }
        throw new AssertionError("not reached within " + MAX_PASSES + " loop passes: " + what + " (kmeta "
                + metadata.state() + ", " + brokers.metadataRequests() + " metadata requests, " + metadata.fetch()
                + ")");
    }

    @Test
    void aLeaderThatHasNotYetLearnedItLeadsGetsTheBatchAgainSoonAndThePartitionIsRefreshed() {
        // kmeta learned that 2 leads at epoch 5; 2 has not applied that election yet and refuses, naming the old
        // leader, 1 at epoch 4. kmeta ignores such a hint (older than what it knows) and refreshes nothing for it; our
        // metadata is right, only 2 catching up helps. So: ask for a refresh anyway, and retry 2 after 10 ms, then
        // 20 (not a whole retry.backoff.ms, nor - as before - only once some unrelated change made a newer snapshot).
        brokers.leaders.put(0, new int[] {2, 5});
        knowLeaders(1);
        int[] refusals = {2};
        brokers.produce = (node, p) -> refusals[0]-- > 0
                ? new PartitionProduceResponse().setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code())
                        .setCurrentLeader(new LeaderIdAndEpoch().setLeaderId(1).setLeaderEpoch(4))
                : new PartitionProduceResponse();
        PendingRecord r = send(0);
        runUntil(() -> stats.retries.sum() == 1, "the refusal");
        int requestsBefore = brokers.metadataRequests();
        loop.runOnce(); // kmeta takes the posted commands in, in the poll
        // Wanted, or sent.
        assertTrue(metadata.state() == RefreshState.NEED_UPDATE || brokers.metadataRequests() > requestsBefore,
                "the partition must be refreshed; state " + metadata.state());
        assertEquals(0, stats.leaderHints.sum(), "a hint older than the snapshot is not passed on");
        runUntil(() -> r.future.isDone(), "the ack");

        assertEquals(2, r.future.join().leaderId());
        List<Long> attemptsMs = brokers.produced.stream().map(ThreeBrokers.Sent::atMs).toList();
        assertEquals(3, attemptsMs.size(), brokers.produced.toString());
        assertEquals(attemptsMs.get(0) + 1 + NetworkLoop.LAGGING_LEADER_BACKOFF_MS, attemptsMs.get(1),
                "answers come 1 ms after the request; then the first short backoff");
        assertEquals(attemptsMs.get(1) + 1 + 2 * NetworkLoop.LAGGING_LEADER_BACKOFF_MS, attemptsMs.get(2),
                "doubled for the second refusal in a row");
        ExampleProducer.Failover f = loop.failovers().get(0);
        assertEquals(3 * NetworkLoop.LAGGING_LEADER_BACKOFF_MS * 1_000_000, f.clientWaitNs(),
                "the client's share is the two backoffs; " + f.timeline());
    }

    @Test
    void aRetryGoesWhenItsBackoffEndsEvenIfAnotherAnswerWokeTheLoopMeanwhile() {
        // p0 led by 2 gets a retriable error; p1 led by 3 is acked 60 ms later, waking the loop while p0 backs off.
        // The loop must then poll only for the 40 ms left, not a whole retry.backoff.ms from that moment.
        brokers.leaders.put(0, new int[] {2, 5});
        brokers.leaders.put(1, new int[] {3, 5});
        knowLeaders(2);
        brokers.produceDelayMs = node -> node.equals("3") ? 60 : 1;
        int[] refusals = {1};
        brokers.produce = (node, p) -> node.equals("2") && refusals[0]-- > 0
                ? new PartitionProduceResponse().setErrorCode(Errors.NOT_ENOUGH_REPLICAS.code())
                : new PartitionProduceResponse();
        PendingRecord r0 = send(0);
        PendingRecord r1 = send(1);
        runUntil(() -> r0.future.isDone() && r1.future.isDone(), "both acks");

        List<ThreeBrokers.Sent> toTwo = brokers.produced.stream().filter(s -> s.nodeId().equals("2")).toList();
        assertEquals(2, toTwo.size(), "one refused attempt, one retry: " + brokers.produced);
        long failedAtMs = toTwo.get(0).atMs() + 1; // the answer came 1 ms after the request
        assertEquals(failedAtMs + BACKOFF_MS, toTwo.get(1).atMs(), "the retry goes when its backoff ends");
    }

    @Test
    void aStaleLeaderWithAHintIsLeftAtOnceAndTheTimelineSaysSo() {
        brokers.leaders.put(0, new int[] {2, 5});
        knowLeaders(1);
        brokers.produce = (node, p) -> node.equals("2")
                ? new PartitionProduceResponse().setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code())
                        .setCurrentLeader(new LeaderIdAndEpoch().setLeaderId(3).setLeaderEpoch(6))
                : new PartitionProduceResponse();
        PendingRecord r = send(0);
        runUntil(() -> r.future.isDone(), "the ack");

        assertEquals(3, r.future.join().leaderId());
        List<ExampleProducer.Failover> failovers = loop.failovers();
        assertEquals(1, failovers.size());
        ExampleProducer.Failover f = failovers.get(0);
        assertEquals(2, f.oldLeaderId());
        assertEquals(3, f.newLeaderId());
        assertEquals("hint", f.learnedFrom(), f.timeline());
        assertTrue(f.cause().startsWith("NOT_LEADER_OR_FOLLOWER (hint: leader 3, epoch 6)"), f.cause());
        assertEquals(f.failedNs(), f.resentNs(), "no backoff, no waiting: resent in the same fake millisecond; "
                + f.timeline());
        assertEquals(0, f.clientWaitNs());
        assertTrue(f.failedNs() <= f.newLeaderSeenNs() && f.newLeaderSeenNs() <= f.resentNs()
                && f.resentNs() < f.ackedNs(), f.timeline());
    }
}
