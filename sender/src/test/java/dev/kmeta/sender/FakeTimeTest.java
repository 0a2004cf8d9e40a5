package dev.kmeta.sender;

import dev.kmeta.faketime.FakeTicker;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.testkit.FakeKafkaClient;
import dev.kmeta.testkit.MetadataAnswers;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sender's time-driven behaviour through the public entry point, on fake time: a driven {@link KafkaMetadata} on
 * a {@link FakeTicker} that testkit's {@link FakeKafkaClient} reads and moves ({@code builder(props).ticker(ticker)
 * .buildDriven()}, {@code metadataUpdater()}, {@code attach}), the test thread its network thread. Request timeout,
 * retry backoff, rebootstrap trigger, idle topic expiry and a wait's deadline each run to the fake millisecond; a
 * waiting thread parks on the fake ticker, which wakes it when the client's time passes its deadline. Jitter is off
 * ({@code kmeta.metadata.jitter=0}).
 */
class FakeTimeTest {
    private static final String TOPIC = "orders";
    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final long BACKOFF_MS = 100;
    private static final long BACKOFF_MAX_MS = 1_000;

    private final FakeTicker ticker = new FakeTicker();
    private final FakeKafkaClient client = new FakeKafkaClient(ticker::nanoTime, ticker::advanceToNs);
    private final List<KafkaMetadata> opened = new ArrayList<>();
    private ExecutorService waiter;

    @AfterEach
    void close() {
        opened.forEach(KafkaMetadata::close);
        if (waiter != null) {
            waiter.shutdownNow();
        }
    }

    /** A driven instance on the fake client's clock, with the test's settings over the defaults here. */
    private KafkaMetadata start(Object... keyValues) {
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", "boot.test:9092",
                "client.id", "fake-time-test", "kmeta.metadata.jitter", 0, "retry.backoff.ms", BACKOFF_MS,
                "retry.backoff.max.ms", BACKOFF_MAX_MS));
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        DrivenKafkaMetadata metadata = KafkaMetadata.builder(props).ticker(ticker).buildDriven();
        opened.add(metadata);
        client.updater(metadata.metadataUpdater());
        metadata.attach(client);
        return metadata;
    }

    /** Gaps between consecutive metadata sends, in fake ms. */
    private List<Long> sendGapsMs() {
        List<Long> at = client.sendCallsAtMs();
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < at.size(); i++) {
            gaps.add(at.get(i) - at.get(i - 1));
        }
        return gaps;
    }

    @Test
    void aRequestWithoutAnAnswerFailsAtRequestTimeoutAndGoesAgainAtOnce() {
        long requestTimeoutMs = 3_000;
        start("request.timeout.ms", requestTimeoutMs); // every node accepts connections and never answers
        client.runUntil(() -> client.sendCallsAtMs().size() == 3, 3 * requestTimeoutMs);

        // The client closes the connection at the request's timeout; the retry backoff (100 ms from the attempt) is
        // long over, so the request goes again once the fixture's new connection is up, 1 ms later.
        assertEquals(List.of(requestTimeoutMs + 1, requestTimeoutMs + 1), sendGapsMs(),
                "sends at " + client.sendCallsAtMs());
        assertEquals(2, client.unanswered());
    }

    @Test
    void statsAreAnImmutableSnapshotAndMinusIsWhatHappenedBetween() {
        KafkaMetadata metadata = start();
        client.drops(id -> true); // every request is dropped by the node 1 ms after it arrives
        client.runUntil(() -> client.sendCallsAtMs().size() == 2, 60_000);
        MetadataStats earlier = metadata.stats();
        client.runUntil(() -> client.sendCallsAtMs().size() == 5, 60_000);
        MetadataStats later = metadata.stats();

        assertEquals(2, earlier.requestsSent(), earlier.toString());
        assertEquals(5, later.requestsSent(), "an earlier snapshot does not move: " + earlier);
        assertEquals(3, later.minus(earlier).requestsSent());
        assertEquals(later.requestsFailed() - earlier.requestsFailed(), later.minus(earlier).requestsFailed());
        assertTrue(later.requestsFailed() >= 4, later.toString());
        assertEquals(0, later.responsesApplied());
        assertEquals(0, later.waitersNow());
        assertEquals(Diagnosis.Cause.values().length, later.waitTimeoutsByCause().size(), "every cause, zeros too");
    }

    @Test
    void failedRequestsBackOffExponentiallyUpToRetryBackoffMax() {
        start();
        client.drops(id -> true); // every request is dropped by the node 1 ms after it arrives
        client.runUntil(() -> client.sendCallsAtMs().size() == 9, 60_000);

        // From one attempt to the next: the backoff (100 ms doubling, at most retry.backoff.max.ms), then 1 ms for the
        // fixture's new connection (the node dropped the last one).
        assertEquals(List.of(101L, 201L, 401L, 801L, 1001L, 1001L, 1001L, 1001L), sendGapsMs(),
                "sends at " + client.sendCallsAtMs());
    }

    @Test
    void whenNoAnswerComesForTheTriggerTimeTheSenderGoesBackToTheBootstrap() {
        long triggerMs = 10_000;
        KafkaMetadata metadata = start("metadata.recovery.strategy", "rebootstrap",
                "metadata.recovery.rebootstrap.trigger.ms", triggerMs);
        client.rebootstrapTriggerMs(triggerMs).drops(id -> true) // learned broker 1 drops every request
                .answers(id -> id.startsWith("-") ? answer(Errors.NONE) : null);
        client.runUntil(() -> !metadata.fetch().nodes().isEmpty(), 1_000);
        metadata.requestUpdate(); // wanted from now on; only broker 1 is asked, and it never answers
        long rebootstrapAtMs = -1;
        while (rebootstrapAtMs < 0) {
            assertTrue(client.nowMs() < 3 * triggerMs, "no rebootstrap; sent to " + client.sentTo());
            client.poll(1, client.nowMs());
            if (metadata.stats().rebootstraps() == 1) {
                rebootstrapAtMs = client.nowMs();
            }
        }

        // The refresh was first tried when the sender began connecting to broker 1: 1 ms (the fixture's connection)
        // before its first request there.
        assertEquals("1", client.sentTo().get(1));
        long firstTriedAtMs = client.sendCallsAtMs().get(1) - 1;
        assertEquals(firstTriedAtMs + triggerMs, rebootstrapAtMs, "sends at " + client.sendCallsAtMs());
        client.runUntil(() -> client.sentTo().get(client.sentTo().size() - 1).equals("-1"), BACKOFF_MAX_MS + 1);
    }

    @Test
    void aTopicNobodyUsesForMetadataMaxIdleExpires() {
        long maxIdleMs = 5_000;
        KafkaMetadata metadata = start("metadata.max.idle.ms", maxIdleMs);
        client.answers(id -> answer(Errors.NONE));
        long usedAtMs = client.nowMs();
        metadata.subscribe(TOPIC);
        client.runUntil(() -> metadata.fetch().partitionCount(TOPIC) == 1, 1_000);

        client.runFor(usedAtMs + maxIdleMs - client.nowMs());
        assertNotNull(metadata.fetch().topic(TOPIC), "idle for metadata.max.idle.ms: not yet expired");
        client.runFor(2_000); // the sweep runs once a second, in a step (at least one a second)
        assertNull(metadata.fetch().topic(TOPIC), "expired once idle for longer than metadata.max.idle.ms");
    }

    @Test
    void aWaitEndsAtItsDeadlineOnTheInstancesClock() throws Exception {
        long maxBlockMs = 60_000;
        KafkaMetadata metadata = start("max.block.ms", maxBlockMs);
        client.answers(id -> answer(Errors.UNKNOWN_TOPIC_OR_PARTITION));
        Deadline deadline = metadata.newSendDeadline();
        AtomicReference<Thread> waiting = new AtomicReference<>();
        waiter = Executors.newSingleThreadExecutor();
        Future<?> wait = waiter.submit(() -> {
            waiting.set(Thread.currentThread());
            return metadata.awaitTopic(TOPIC, MetadataClient.ANY_PARTITION, deadline);
        });
        ticker.awaitParked(1);

        client.runFor(maxBlockMs - 1);
        assertEquals(1, deadline.remainingMs(), "max.block.ms on the instance's clock");
        assertTrue(ticker.awaitParked(waiting.get()), "1 ms before its deadline the wait goes on");
        assertEquals(1_000_000L, ticker.parkedForNs(waiting.get()), "parked until its deadline");
        assertFalse(wait.isDone());
        client.runFor(1); // the ticker wakes the waiter: its deadline passed

        ExecutionException e = assertThrows(ExecutionException.class, () -> wait.get(10, TimeUnit.SECONDS));
        KafkaMetadataTimeoutException timeout = assertInstanceOf(KafkaMetadataTimeoutException.class, e.getCause());
        Diagnosis d = timeout.diagnosis();
        assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, d.cause(), d.toString());
        assertEquals(maxBlockMs, d.budgetMs());
    }

    /** Broker 1 at b1.test:9092 leading the topic's one partition, or the topic with {@code error} and nothing else. */
    private static MetadataResponse answer(Errors error) {
        MetadataAnswers answer = MetadataAnswers.cluster("fake-cluster").broker(1, "b1.test", 9092);
        return (error == Errors.NONE ? answer.partition(TOPIC, TOPIC_ID, 0, 1, 1, 1)
                : answer.topic(TOPIC, null, error)).response();
    }
}
