package dev.kmeta.producer.internal;

import dev.kmeta.producer.internal.abi.KafkaClientsAbi.SenderRef;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.FakeBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Issue 38: the producer's network thread sleeps as a stock one does while it waits for metadata - kmeta's answer
 * wakes it ({@code Sender.wakeup()}) instead of its looking every 10 ms - and nothing else of kmeta's wakes it. The
 * test thread plays the network thread against a kmeta instance on testkit's {@link FakeBroker} (loopback); the
 * wake-ups are counted where the Sender's would be.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProducerBridgeWakeupTest {
    private static final String TOPIC = "orders";

    private FakeBroker broker;
    private KafkaMetadata metadata;
    private ProducerBridge bridge;
    private final AtomicInteger wakeups = new AtomicInteger();

    @BeforeEach
    void start() {
        broker = FakeBroker.start(1);
        broker.createTopic(TOPIC, 1);
        metadata = KafkaMetadata.shared(props());
        bridge = new ProducerBridge(metadata, 300_000, 0, 60_000, "[test] ");
        bridge.attach(new SenderRef(Thread.currentThread(), () -> true, wakeups::incrementAndGet));
        assertEquals(Long.MAX_VALUE, bridge.timeToNextUpdate(), "nothing asked yet"); // this thread is the network's
        metadata.awaitTopic(TOPIC, 0, metadata.newSendDeadline());
    }

    private Map<String, Object> props() {
        return Map.of("bootstrap.servers", broker.bootstrapServers(), "client.id", "wakeup-test",
                "metadata.max.age.ms", 600_000, "retry.backoff.ms", 10);
    }

    @AfterEach
    void stop() {
        bridge.close();
        broker.close();
    }

    @Test
    void anUpdateTheNetworkThreadAskedForWakesItOnceWhenKmetaPublishesIt() {
        int asked = bridge.requestUpdate();
        // its poll sleeps on its own timers (before: 10 ms) - or, when the answer came first, returns at once
        assertEquals(Long.MAX_VALUE, bridge.timeToNextUpdate());
        await().atMost(Duration.ofSeconds(30)).until(() -> metadata.fetch().version() > asked);
        await().atMost(Duration.ofSeconds(10)).until(() -> wakeups.get() == 1);
        assertEquals(Long.MAX_VALUE, bridge.timeToNextUpdate());

        int other = metadata.requestUpdate(); // another producer's, or kmeta's own, refresh
        metadata.awaitUpdate(other, metadata.newSendDeadline());
        assertEquals(Long.MAX_VALUE, bridge.timeToNextUpdate());
        assertEquals(1, wakeups.get(), "a version nobody on this network thread waits for wakes nothing");
        assertEquals(1, bridge.networkThreadWakeups());
    }

    @Test
    void aClosedProducerIsNoLongerWoken() {
        try (KafkaMetadata sameInstance = KafkaMetadata.shared(props())) { // another producer keeps the instance
            bridge.requestUpdate();
            bridge.close(); // with an update still wanted
            int before = wakeups.get();
            int v = sameInstance.requestUpdate();
            sameInstance.awaitUpdate(v, sameInstance.newSendDeadline());
            assertEquals(before, wakeups.get(), "kmeta's thread no longer calls into a closed producer");
        }
    }
}
