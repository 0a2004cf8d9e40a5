package dev.kmeta.sender;

import dev.kmeta.testkit.FakeKafkaClient;
import dev.kmeta.testkit.MetadataAnswers;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import javax.management.JMX;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The staleness target through the public entry point on fake time (a driven instance on {@link FakeKafkaClient}'s
 * clock, as {@code FakeTimeTest}): the topic is asked for again exactly when its metadata is older than
 * {@code kmeta.metadata.max.staleness.ms} - not a fake millisecond before - and {@code stats()} and the MBean
 * ({@code StaleRefreshes}, {@code OldestTopicAgeSeconds}) say so.
 */
class StalenessFakeTimeTest {
    private static final String TOPIC = "orders";
    private static final long TARGET_MS = 5_000;

    private final FakeKafkaClient client = new FakeKafkaClient();
    private DrivenKafkaMetadata metadata;

    @AfterEach
    void close() {
        if (metadata != null) {
            metadata.close();
        }
    }

    private void start(long targetMs) {
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", "boot.test:9092",
                "client.id", "staleness-fake-time-test", "kmeta.metadata.jitter", 0,
                "kmeta.metadata.max.staleness.ms", targetMs));
        metadata = KafkaMetadata.builder(props).ticker(client::nanoTime).buildDriven();
        client.updater(metadata.metadataUpdater());
        metadata.attach(client);
        client.answers(id -> answer());
    }

    /** Polls in 1 ms steps until {@code sends} metadata requests were sent, within {@code fakeMs}. */
    private void pollUntilSends(int sends, long fakeMs) {
        long endMs = client.nowMs() + fakeMs;
        while (client.sendCallsAtMs().size() < sends) {
            assertTrue(client.nowMs() < endMs, "not within " + fakeMs + " fake ms: " + client.sendCallsAtMs());
            client.poll(1, client.nowMs());
        }
    }

    @Test
    void aTopicIsAskedForAgainExactlyWhenOlderThanTheTarget() throws Exception {
        start(TARGET_MS);
        metadata.subscribe(TOPIC);
        pollUntilSends(1, 1_000);
        while (metadata.fetch().partitionCount(TOPIC) != 1) {
            client.poll(1, client.nowMs());
        }
        long describedAtMs = client.nowMs(); // the answer was applied in the last poll
        assertEquals(0, metadata.stats().oldestTopicAgeMs());
        client.answerDelayMs(1_000); // so that the stale refresh's answer is not in when we look

        pollUntilSends(2, 2 * TARGET_MS);
        long secondAtMs = client.sendCallsAtMs().get(1);
        assertEquals(describedAtMs + TARGET_MS + 1, secondAtMs, "asked again once older than the target, not before");
        MetadataStats stats = metadata.stats();
        assertEquals(1, stats.staleRefreshes(), stats.toString());
        long ageMs = client.nowMs() - describedAtMs;
        assertTrue(ageMs > TARGET_MS && ageMs < TARGET_MS + 1_000, "the answer is not in yet: " + ageMs);
        assertEquals(ageMs, stats.oldestTopicAgeMs());

        KafkaMetadataMXBean bean = JMX.newMXBeanProxy(ManagementFactory.getPlatformMBeanServer(),
                metadata.mbeanName(), KafkaMetadataMXBean.class);
        assertEquals(1, bean.getStaleRefreshes());
        assertEquals(ageMs / 1_000.0, bean.getOldestTopicAgeSeconds(), 1e-9);

        long endMs = client.nowMs() + 1_000;
        while (client.nowMs() < endMs) {
            client.poll(endMs - client.nowMs(), client.nowMs());
        }
        assertTrue(metadata.stats().oldestTopicAgeMs() < TARGET_MS, "refreshed: " + metadata.stats());
    }

    @Test
    void offTheTopicWaitsForMetadataMaxAge() {
        start(0);
        metadata.subscribe(TOPIC);
        pollUntilSends(1, 1_000);
        long endMs = client.nowMs() + 60_000;
        while (client.nowMs() < endMs) {
            client.poll(endMs - client.nowMs(), client.nowMs());
        }
        assertEquals(List.of(client.sendCallsAtMs().get(0)), client.sendCallsAtMs(), "one request in 60 s");
        assertEquals(0, metadata.stats().staleRefreshes());
    }

    private static MetadataResponse answer() {
        return MetadataAnswers.cluster("fake-cluster").broker(1, "b1.test", 9092)
                .partition(TOPIC, Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"), 0, 1, 1, 1).response();
    }
}
