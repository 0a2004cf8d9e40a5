package dev.kmeta.sender.internal;

import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.testkit.FakeKafkaClient;
import dev.kmeta.testkit.MetadataAnswers;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 28: an instance's first request waits up to {@code retry.backoff.ms} for a first topic (its connection gets
 * ready meanwhile), so that a producer sending right after it was created asks for its topic in that request - one
 * request, as a stock producer's - and a topic asked for again while that request is in flight is not asked a second
 * time once the answer has it. On a {@link FakeKafkaClient} and fake time.
 */
class MetadataDriverStartupTest {
    private static final long RETRY_BACKOFF_MS = 100;

    private final FakeKafkaClient client = new FakeKafkaClient().rebootstrapTriggerMs(Long.MAX_VALUE);
    private final MetadataConfig config = MetadataConfig.from(Map.of("bootstrap.servers", "boot.test:9092",
            "client.id", "startup-test", "kmeta.metadata.jitter", 0, "retry.backoff.ms", RETRY_BACKOFF_MS));
    private final MetadataManager manager = new MetadataManager(config, client::nanoTime);
    private final MetadataDriver driver = new MetadataDriver(manager, config, new RecordingResolver(host -> {
        throw new UnknownHostException(host); // never asked: the fake client resolves nothing
    }), manager.connections());

    MetadataDriverStartupTest() {
        client.updater(driver.nodeProvider());
        client.answers(id -> answer());
        client.answerDelayMs(5);
        driver.attach(client);
    }

    @Test
    void aTopicSubscribedSoonAfterTheStartGoesInTheFirstRequestAndIsNotAskedAgain() {
        long startMs = client.nowMs();
        runUntil(() -> false, 50); // the producer is being built: nothing subscribed yet
        assertEquals(0, client.metadataRequestsSent(), "no topicless start-up request");
        assertEquals(Map.of("-1", 1), client.connectionsStarted(), "the connection got ready meanwhile");

        manager.subscribe("orders");
        manager.subscribe("orders"); // the send's wait tells the sender again, as KafkaProducer's does
        runUntil(() -> manager.fetch().partitionCount("orders") == 1, 1_000);
        assertEquals(1, client.metadataRequestsSent(), "the first request asked for the topic");
        assertTrue(client.nowMs() - startMs < 50 + RETRY_BACKOFF_MS, "not after the grace: " + (client.nowMs()
                - startMs));

        manager.subscribe("orders"); // the next send: a hit
        runUntil(() -> false, 5_000);
        assertEquals(1, client.metadataRequestsSent(), "the topic was not asked for again: "
                + client.sendCallsAtMs());
    }

    @Test
    void withNothingSubscribedTheStartUpRequestGoesAfterRetryBackoffMs() {
        long startMs = client.nowMs();
        runUntil(() -> !manager.fetch().nodes().isEmpty(), 10_000);
        assertEquals(1, client.metadataRequestsSent());
        assertEquals(RETRY_BACKOFF_MS, client.sendCallsAtMs().get(0) - startMs, "sent when the grace ended");
    }

    @Test
    void aThreadWaitingForAnUpdateEndsTheGraceAtOnce() throws Exception {
        long startMs = client.nowMs();
        Thread waiter = new Thread(() -> manager.awaitUpdate(0, manager.newDeadline(Duration.ofSeconds(60))), "startup-test-waiter");
        waiter.setDaemon(true);
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> manager.counters().waitersNow() > 0); // fake time stands
        runUntil(() -> client.metadataRequestsSent() > 0, 1_000);
        assertTrue(client.sendCallsAtMs().get(0) - startMs < RETRY_BACKOFF_MS, "sent before the grace ended: "
                + client.sendCallsAtMs());
        runUntil(() -> !waiter.isAlive(), 1_000);
        waiter.join(10_000);
    }

    private void runUntil(BooleanSupplier done, long fakeMs) {
        long endMs = client.nowMs() + fakeMs;
        for (int i = 0; i < 1_000_000 && !done.getAsBoolean() && client.nowMs() < endMs; i++) {
            client.poll(Math.min(driver.step(client.nowMs()), endMs - client.nowMs()), client.nowMs());
        }
    }

    /** A v13 answer: broker 1; topic orders with one partition led by 1. */
    private static MetadataResponse answer() {
        return MetadataAnswers.cluster("fake-cluster").broker(1, "broker1.test", 9093)
                .partition("orders", Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"), 0, 1, 1, 1).response();
    }
}
