package dev.kmeta.producer.internal;

import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.FakeBroker;
import dev.kmeta.testkit.FaultProxy;
import org.apache.kafka.common.Cluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The producer's network thread before kmeta's first answer (its first {@code fetch()}): it waits parked among kmeta's
 * version waiters, so kmeta's answer wakes it at once and its InitProducerId goes out then - not at its next look
 * (before: it slept 1, 2, 4, 8, 10 ms... and saw an answer up to 10 ms late, which the first send of a fresh producer
 * paid). A thread under the producer's network thread's name plays it; kmeta's bootstrap is a loopback
 * {@link FaultProxy} that refuses until the test lets it pass to testkit's {@link FakeBroker}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProducerBridgeFirstAnswerTest {
    private static final String CLIENT_ID = "first-answer-test";

    @Test
    void theNetworkThreadWaitsWhereKmetasFirstAnswerWakesIt() throws Exception {
        try (FakeBroker broker = FakeBroker.start(1);
             FaultProxy proxy = FaultProxy.to("127.0.0.1", broker.port(0)).refuse()) {
            KafkaMetadata metadata = KafkaMetadata.builder(Map.of("bootstrap.servers", proxy.address(),
                    "client.id", CLIENT_ID, "reconnect.backoff.ms", 50, "reconnect.backoff.max.ms", 200)).build();
            ProducerBridge bridge = new ProducerBridge(metadata, 300_000, 0, 60_000, "[test] ", CLIENT_ID);
            try {
                CompletableFuture<Cluster> firstView = new CompletableFuture<>();
                Thread network = new Thread(() -> firstView.complete(bridge.fetch()),
                        "kafka-producer-network-thread | " + CLIENT_ID);
                network.setDaemon(true);
                network.start();

                // parked with kmeta's manager as its blocker (a thread dump names it), where kmeta's publication
                // unparks it; before, Thread.sleep: no blocker
                await().atMost(Duration.ofSeconds(30)).until(() -> isParkedInKmeta(network));
                assertFalse(firstView.isDone(), "no broker known yet");

                proxy.pass();
                Cluster view = firstView.get(30, TimeUnit.SECONDS);
                assertEquals(1, view.nodes().size(), "the view after kmeta's first answer");
                assertEquals(1, bridge.firstAnswerWaits());
            } finally {
                bridge.close();
            }
        }
    }

    private static boolean isParkedInKmeta(Thread t) {
        Object blocker = LockSupport.getBlocker(t);
        return blocker != null && blocker.getClass().getName().startsWith("dev.kmeta.metadata.internal.");
    }
}
