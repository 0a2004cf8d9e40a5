package dev.kmeta.sender;

import dev.kmeta.faketime.FakeTicker;
import dev.kmeta.cluster.Cluster;
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

import java.util.HashMap;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A topic that was just created, on the scripted fake ({@link FakeKafkaClient}, a driven {@link KafkaMetadata} on its
 * fake clock, as in {@link FakeTimeTest}): the brokers' answer is switched between "the topic, one partition" and
 * UNKNOWN_TOPIC_OR_PARTITION as a cluster still propagating a new topic would give them. A wait on a topic created
 * while it waits succeeds; a wait that times out on a topic an answer showed moments before, or that the brokers
 * disagree about, is diagnosed TOPIC_PROPAGATING; one shown long before (deleted since) stays TOPIC_NOT_FOUND.
 */
class NewTopicPropagationTest {
    private static final String TOPIC = "fresh";
    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg");
    private static final long MAX_BLOCK_MS = 5_000;

    private final FakeTicker ticker = new FakeTicker();
    private final FakeKafkaClient client = new FakeKafkaClient(ticker::nanoTime, ticker::advanceToNs);
    /** What every broker answers now. */
    private final AtomicReference<MetadataResponse> world = new AtomicReference<>(answer(Errors.UNKNOWN_TOPIC_OR_PARTITION));
    private KafkaMetadata metadata;
    private ExecutorService waiter;

    @AfterEach
    void close() {
        if (metadata != null) {
            metadata.close();
        }
        if (waiter != null) {
            waiter.shutdownNow();
        }
    }

    private KafkaMetadata start() {
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", "boot.test:9092",
                "client.id", "new-topic-test", "kmeta.metadata.jitter", 0, "max.block.ms", MAX_BLOCK_MS));
        DrivenKafkaMetadata m = KafkaMetadata.builder(props).ticker(ticker).buildDriven();
        metadata = m;
        client.updater(m.metadataUpdater()).answers(id -> world.get());
        m.attach(client);
        return m;
    }

    /** The brokers show the topic: kmeta learns it (a subscription). */
    private void shown() {
        world.set(answer(Errors.NONE));
        metadata.subscribe(TOPIC);
        client.runUntil(() -> metadata.fetch().topic(TOPIC) != null, 10_000);
    }

    /** The brokers call the known topic unknown: kmeta drops it at its next refresh of it. */
    private void calledUnknown() {
        world.set(answer(Errors.UNKNOWN_TOPIC_OR_PARTITION));
        metadata.invalidate(TOPIC, 0);
        client.runUntil(() -> metadata.fetch().topic(TOPIC) == null, 10_000);
    }

    /** A wait for the topic on another thread, its thread parked. */
    private Future<Cluster> waitForTopic(AtomicReference<Thread> waiting) {
        Deadline deadline = metadata.newSendDeadline();
        waiter = Executors.newSingleThreadExecutor();
        Future<Cluster> wait = waiter.submit(() -> {
            waiting.set(Thread.currentThread());
            return metadata.awaitTopic(TOPIC, MetadataClient.ANY_PARTITION, deadline);
        });
        ticker.awaitParked(1);
        return wait;
    }

    /** Runs the fake clock through the whole budget of a wait for the topic and returns its diagnosis. */
    private Diagnosis timedOutWait() throws Exception {
        AtomicReference<Thread> waiting = new AtomicReference<>();
        Future<Cluster> wait = waitForTopic(waiting);
        client.runFor(MAX_BLOCK_MS); // the ticker wakes the waiter at its deadline
        ExecutionException e = assertThrows(ExecutionException.class, () -> wait.get(10, TimeUnit.SECONDS));
        return assertInstanceOf(KafkaMetadataTimeoutException.class, e.getCause()).diagnosis();
    }

    @Test
    void aWaitOnATopicCreatedWhileItWaitsSucceeds() throws Exception {
        start();
        AtomicReference<Thread> waiting = new AtomicReference<>();
        Future<Cluster> wait = waitForTopic(waiting);
        client.runFor(MAX_BLOCK_MS / 2); // several UNKNOWN_TOPIC_OR_PARTITION answers: the wait goes on
        assertFalse(wait.isDone(), "an unknown topic is asked again within the budget, not failed");
        long unknownAnswers = metadata.stats().responsesApplied();
        assertTrue(unknownAnswers >= 2, "asked again: " + metadata.stats());

        world.set(answer(Errors.NONE)); // created
        client.runUntil(() -> metadata.fetch().topic(TOPIC) != null, MAX_BLOCK_MS / 2);
        Cluster c = wait.get(10, TimeUnit.SECONDS);
        assertEquals(1, c.partitionCount(TOPIC));
    }

    @Test
    void aTopicShownMomentsBeforeTheBrokersCalledItUnknownIsStillPropagating() throws Exception {
        start();
        shown();
        calledUnknown();
        Diagnosis d = timedOutWait();
        assertEquals(Diagnosis.Cause.TOPIC_PROPAGATING, d.cause(), d.message());
        assertTrue(d.seen().contains("created moments ago"), d.seen());
        assertTrue(d.fix().contains("max.block.ms"), d.fix());
    }

    @Test
    void aTopicShownLongBeforeTheBrokersCalledItUnknownWasDeleted() throws Exception {
        start();
        shown();
        client.runFor(40_000); // past the propagation window: an unknown now is a deletion
        calledUnknown();
        Diagnosis d = timedOutWait();
        assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, d.cause(), d.message());
    }

    @Test
    void brokersThatDisagreeAboutATopicAreStillPropagatingIt() throws Exception {
        start();
        shown();
        client.runFor(40_000);
        calledUnknown();
        shown(); // another broker knows it
        client.runFor(40_000);
        calledUnknown();
        Diagnosis d = timedOutWait();
        assertEquals(Diagnosis.Cause.TOPIC_PROPAGATING, d.cause(), d.message());
        assertTrue(d.seen().contains("disagree"), d.seen());
    }

    @Test
    void aTopicIdShownWithAnErrorCountsAsSeen() throws Exception {
        start();
        world.set(answer(Errors.LEADER_NOT_AVAILABLE)); // its id, no partitions yet: being created
        metadata.subscribe(TOPIC);
        client.runUntil(() -> metadata.stats().responsesApplied() >= 1, 10_000);
        world.set(answer(Errors.UNKNOWN_TOPIC_OR_PARTITION)); // a broker that has not heard of it yet
        Diagnosis d = timedOutWait();
        assertEquals(Diagnosis.Cause.TOPIC_PROPAGATING, d.cause(), d.message());
        assertNotNull(d.seen());
    }

    /**
     * Broker 1 at b1.test:9092 and the topic: NONE with its id and one partition led by broker 1;
     * LEADER_NOT_AVAILABLE with its id and no partitions; or another error and nothing else.
     */
    private static MetadataResponse answer(Errors error) {
        MetadataAnswers answer = MetadataAnswers.cluster("fake-cluster").broker(1, "b1.test", 9092)
                .topic(TOPIC, error == Errors.NONE || error == Errors.LEADER_NOT_AVAILABLE ? TOPIC_ID : null, error);
        return (error == Errors.NONE ? answer.partition(TOPIC, TOPIC_ID, 0, 1, 1, 1) : answer).response();
    }
}
