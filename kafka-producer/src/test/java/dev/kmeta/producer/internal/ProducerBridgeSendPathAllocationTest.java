package dev.kmeta.producer.internal;

import dev.kmeta.producer.internal.abi.KafkaClientsAbi.SenderRef;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.FakeBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The route's send path on a hit allocates nothing: the calls KafkaProducer's {@code send()} makes for a known topic
 * (the interceptor's onSend, waitOnMetadata's fetch and add), on a sending thread, while the producer's network
 * thread is attached. Counted with the JVM's per-thread allocation counter over many sends (a per-call allocation of
 * even one object would show as kilobytes).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProducerBridgeSendPathAllocationTest {
    private static final String TOPIC = "orders";
    private static final int SENDS = 20_000;

    private FakeBroker broker;
    private KafkaMetadata metadata;
    private ProducerBridge bridge;

    @BeforeEach
    void start() {
        broker = FakeBroker.start(1);
        broker.createTopic(TOPIC, 3);
        metadata = KafkaMetadata.builder(Map.of("bootstrap.servers", broker.bootstrapServers())).build();
        bridge = new ProducerBridge(metadata, 300_000, 0, 60_000, "[test] ");
        Thread network = new Thread(() -> { }, "kafka-producer-network-thread | alloc-test");
        bridge.attach(new SenderRef(network, () -> true, () -> { }));
        metadata.awaitTopic(TOPIC, 0, metadata.newSendDeadline());
    }

    @AfterEach
    void stop() {
        bridge.close();
        broker.close();
    }

    private void send(long nowMs) {
        bridge.onSend(TOPIC, null);
        assertEquals(3, bridge.fetch().partitionCountForTopic(TOPIC));
        bridge.add(TOPIC, nowMs);
    }

    @Test
    void aSendToAKnownTopicAllocatesNothingOnTheRoute() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no per-thread allocation counter");
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled());
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
}
