package dev.kmeta.sender;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.PrefetchResult;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.sender.ItSupport.fastProps;
import static dev.kmeta.sender.ItSupport.onNewThread;
import static dev.kmeta.sender.ItSupport.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Warm-up and the staleness target against a real broker, Metadata requests counted at the proxy in front of it:
 * {@code prefetch} of 20 topics is one request; a topic that does not exist comes back diagnosed at the budget, the
 * others fetched; an interrupt and close end a prefetch; {@code kmeta.metadata.prefetch.topics} puts its topics in the
 * first request without anyone waiting; and {@code kmeta.metadata.max.staleness.ms} refreshes a topic ahead of
 * {@code metadata.max.age.ms}, counted, never more than once per target period.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WarmUpTest {
    private static final short METADATA = 3;
    private static final int TOPICS = 20;
    private static final Duration SOON = Duration.ofSeconds(30);

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().withProxies());

    private FaultProxy proxy;

    @BeforeAll
    static void topics() {
        for (int i = 0; i < TOPICS; i++) {
            KAFKA.cluster().createTopic("warm-" + i, 2, 1);
        }
    }

    @BeforeEach
    void countFromZero() {
        proxy = KAFKA.cluster().proxy(0);
        proxy.resetCounters();
    }

    private static Map<String, Object> props() {
        return fastProps(KAFKA.cluster().proxiedBootstrapServers());
    }

    /** An instance past its first answer (brokers known), with the proxy's counters reset after it. */
    private KafkaMetadata started(Map<String, Object> props) {
        KafkaMetadata metadata = KafkaMetadata.create(props);
        await().atMost(SOON).until(() -> !metadata.fetch().nodes().isEmpty()
                && metadata.state() == RefreshState.STABLE);
        proxy.resetCounters();
        return metadata;
    }

    private static List<String> warmTopics() {
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < TOPICS; i++) {
            topics.add("warm-" + i);
        }
        return topics;
    }

    @Test
    void aPrefetchOfTwentyTopicsIsOneMetadataRequest() {
        try (KafkaMetadata metadata = started(props())) {
            MetadataStats before = metadata.stats();
            PrefetchResult result = metadata.prefetch(warmTopics(), metadata.newDeadline(Duration.ofSeconds(30)));
            MetadataStats delta = metadata.stats().minus(before);

            assertTrue(result.complete(), result.toString());
            assertEquals(warmTopics(), result.fetched());
            assertEquals(1, proxy.requestCount(METADATA), "one Metadata request at the broker for " + TOPICS
                    + " topics");
            assertEquals(1, delta.requestsSent(), delta.toString());
            assertEquals(1, delta.waits(), "one wait for all of them");
            for (String topic : warmTopics()) {
                assertEquals(2, result.snapshot().partitionCount(topic), topic);
            }
            report("prefetch of %d topics: %d ms, %d Metadata request(s) at the broker", TOPICS, result.elapsedMs(),
                    proxy.requestCount(METADATA));
        }
    }

    @Test
    void aTopicThatDoesNotExistComesBackDiagnosedAtTheBudget() {
        try (KafkaMetadata metadata = started(props())) {
            PrefetchResult result = metadata.prefetch(List.of("warm-0", "no-such-topic", "warm-1"),
                    metadata.newDeadline(Duration.ofSeconds(1)));

            assertEquals(List.of("warm-0", "warm-1"), result.fetched());
            Diagnosis d = result.missing().get("no-such-topic");
            assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, d.cause(), d.toString());
            assertEquals(1_000, d.budgetMs());
            assertTrue(result.elapsedMs() >= 1_000, "it waited out its budget for the missing topic: " + result);
            report("prefetch with a missing topic: %s", result);
        }
    }

    @Test
    void anInterruptEndsAPrefetchAndCloseReleasesOne() throws Exception {
        try (KafkaMetadata metadata = started(props())) {
            CompletableFuture<Thread> waiter = new CompletableFuture<>();
            CompletableFuture<PrefetchResult> interrupted = onNewThread("prefetch-interrupted", () -> {
                waiter.complete(Thread.currentThread());
                return metadata.prefetch(List.of("never-1", "never-2"), metadata.newDeadline(Duration.ofSeconds(60)));
            });
            await().atMost(SOON).until(() -> metadata.stats().waitersNow() == 1);
            waiter.get().interrupt();
            ExecutionException e = assertThrows(ExecutionException.class, () -> interrupted.get(10, TimeUnit.SECONDS));
            assertInstanceOf(InterruptException.class, e.getCause());

            CompletableFuture<PrefetchResult> closed = onNewThread("prefetch-closed",
                    () -> metadata.prefetch(List.of("never-3"), metadata.newDeadline(Duration.ofSeconds(60))));
            await().atMost(SOON).until(() -> metadata.stats().waitersNow() == 1);
            metadata.close();
            e = assertThrows(ExecutionException.class, () -> closed.get(10, TimeUnit.SECONDS));
            assertInstanceOf(KafkaException.class, e.getCause());
            assertInstanceOf(MetadataClosedException.class, e.getCause().getCause());
        }
    }

    @Test
    void theStartUpKeyPutsItsTopicsInTheFirstRequestWithoutAWait() {
        Map<String, Object> props = props();
        props.put("kmeta.metadata.prefetch.topics", "warm-3, warm-4,warm-5");
        try (KafkaMetadata metadata = KafkaMetadata.create(props)) {
            await().atMost(SOON).until(() -> metadata.fetch().partitionCount("warm-3") == 2
                    && metadata.fetch().partitionCount("warm-4") == 2 && metadata.fetch().partitionCount("warm-5") == 2);
            MetadataStats stats = metadata.stats();
            assertEquals(1, stats.requestsSent(), "the first request asked for them: " + stats);
            assertEquals(1, proxy.requestCount(METADATA));
            assertEquals(0, stats.waits(), "nobody waited");
        }
    }

    /**
     * A 500 ms target with metadata.max.age.ms at its default (5 min): the topic is refreshed again and again,
     * each refresh counted, and the broker sees no more than one Metadata request per target period.
     */
    @Test
    void theStalenessTargetRefreshesATopicAheadOfMaxAgeAtMostOncePerPeriod() {
        long targetMs = 500;
        Map<String, Object> props = props();
        props.put("kmeta.metadata.max.staleness.ms", targetMs);
        try (KafkaMetadata metadata = started(props)) {
            assertTrue(metadata.prefetch(List.of("warm-6", "warm-7"), metadata.newDeadline(Duration.ofSeconds(30))).complete());
            long startNs = System.nanoTime();
            MetadataStats before = metadata.stats();
            await().atMost(SOON).until(() -> metadata.stats().staleRefreshes() - before.staleRefreshes() >= 4);
            long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
            long requests = proxy.requestCount(METADATA);
            MetadataStats after = metadata.stats();

            assertTrue(requests <= 1 + elapsedMs / targetMs + 1, requests + " requests in " + elapsedMs + " ms");
            assertTrue(after.oldestTopicAgeMs() >= 0, after.toString());
            report("staleness target %d ms: %d stale refreshes, %d Metadata requests in %d ms, oldest topic age now "
                    + "%d ms", targetMs, after.staleRefreshes(), requests, elapsedMs, after.oldestTopicAgeMs());
        }
    }
}
