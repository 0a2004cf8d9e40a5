package dev.kmeta.producer.internal;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.apache.kafka.clients.MetadataSnapshot;
import org.apache.kafka.common.TopicPartition;

import java.lang.management.ManagementFactory;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The route's send path on a hit allocates nothing: the calls KafkaProducer's {@code send()} makes for a known topic
 * (the interceptor's onSend, waitOnMetadata's fetch and add), on a sending thread, while the producer's network
 * thread is attached. Counted with the JVM's per-thread allocation counter over many sends (a per-call allocation of
 * even one object would show as kilobytes). The same for the network thread's per-loop question: the Sender's ready
 * check and drain ask {@code leaderEpochFor} of every queued partition on every loop.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProducerBridgeSendPathAllocationTest {
    private static final String TOPIC = "orders";
    private static final int SENDS = 20_000;

    private BridgeOnFakeBroker f;

    @BeforeEach
    void start() {
        f = new BridgeOnFakeBroker(TOPIC, 3, "alloc-test");
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private void send(long nowMs) {
        f.bridge.onSend(TOPIC, null);
        assertEquals(3, f.bridge.fetch().partitionCountForTopic(TOPIC));
        f.bridge.add(TOPIC, nowMs);
    }

    private static com.sun.management.ThreadMXBean allocationCounter() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no per-thread allocation counter");
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled());
        return mx;
    }

    @Test
    void aSendToAKnownTopicAllocatesNothingOnTheRoute() {
        com.sun.management.ThreadMXBean mx = allocationCounter();
        long now = System.currentTimeMillis();
        for (int i = 0; i < SENDS; i++) { // warm: views built, the JIT done with the loop
            send(now);
        }
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < SENDS; i++) {
            send(now);
        }
        long bytes = mx.getCurrentThreadAllocatedBytes() - before;
        assertTrue(bytes < SENDS / 4, bytes + " B over " + SENDS + " sends: the route's send path allocates");
    }

    /**
     * The Sender's {@code leaderEpochFor}: the brokers' epoch of each partition, the new one after a bump, empty for a
     * partition or topic the view lacks - and no allocation per call, where kafka-clients' own snapshot makes an
     * {@code OptionalInt} per partition per loop (the results are kept in an array, so the JIT cannot elide one).
     */
    @Test
    void theSendersLeaderEpochLookupIsRightAndAllocatesNothing() {
        f.bridge.onSend(TOPIC, null);
        f.bridge.add(TOPIC, System.currentTimeMillis());
        int epoch = f.broker.leaderEpoch(TOPIC);
        assertEpochs(f.bridge.fetchMetadataSnapshot(), epoch);
        int bumped = f.broker.bumpLeaderEpoch(TOPIC);
        f.metadata.requestUpdate();
        TopicPartition first = new TopicPartition(TOPIC, 0);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
                .until(() -> f.bridge.fetchMetadataSnapshot().leaderEpochFor(first).equals(OptionalInt.of(bumped)));
        MetadataSnapshot snapshot = f.bridge.fetchMetadataSnapshot();
        assertEpochs(snapshot, bumped);
        assertEquals(OptionalInt.empty(), snapshot.leaderEpochFor(new TopicPartition(TOPIC, 3)));
        assertEquals(OptionalInt.empty(), snapshot.leaderEpochFor(new TopicPartition("absent", 0)));

        com.sun.management.ThreadMXBean mx = allocationCounter();
        TopicPartition[] tps = {new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1),
                new TopicPartition(TOPIC, 2)};
        OptionalInt[] kept = new OptionalInt[SENDS];
        for (int i = 0; i < SENDS; i++) { // warm
            kept[i] = snapshot.leaderEpochFor(tps[i % 3]);
        }
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < SENDS; i++) {
            kept[i] = snapshot.leaderEpochFor(tps[i % 3]);
        }
        long bytes = mx.getCurrentThreadAllocatedBytes() - before;
        assertEquals(OptionalInt.of(bumped), kept[SENDS - 1]);
        assertTrue(bytes < SENDS / 4, bytes + " B over " + SENDS + " epoch lookups: the Sender's lookup allocates");
    }

    private static void assertEpochs(MetadataSnapshot snapshot, int epoch) {
        for (int p = 0; p < 3; p++) {
            TopicPartition tp = new TopicPartition(TOPIC, p);
            assertEquals(OptionalInt.of(epoch), snapshot.leaderEpochFor(tp), "partition " + p);
        }
    }
}
