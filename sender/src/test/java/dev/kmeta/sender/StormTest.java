package dev.kmeta.sender;

import dev.kmeta.sender.internal.Handles;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import org.apache.kafka.common.KafkaException;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClosedException;
import org.apache.kafka.common.errors.TimeoutException;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;

import static dev.kmeta.sender.ItSupport.kmetaThreads;
import static dev.kmeta.sender.ItSupport.millisSince;
import static dev.kmeta.sender.ItSupport.report;
import static dev.kmeta.sender.ItSupport.senderThreadAlive;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.time.Duration;

/**
 * A lookup storm: 200 threads asking, in a loop, for a topic that does not exist (each wait with a 500 ms budget) for
 * about 2.5 s. Counted at the proxy in front of the broker, the MetadataRequests stay within what the backoff allows -
 * whatever the number of callers, and whatever the number of producers sharing one instance.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StormTest {
    private static final short METADATA = 3;
    private static final String MISSING = "missing-topic";
    // Half the storm (10 s of 1 s waits, backoff 100 ms doubling to 1 s): the calls, the bound and the ratio
    // of calls to requests scale together; the slack for a loaded machine (slowest call, longest gap) stays as it was.
    // 2.5 s of it (issue 25; was 5 s): the ramp (50 -> 500 ms) and three gaps at the cap still fit, ~1,000 calls make
    // ~8 requests, and a backoff reset by the storm makes ~50 against a bound of 15.
    private static final long STORM_MS = 2_500;
    private static final long CALL_BUDGET_MS = 500;
    private static final long RETRY_BACKOFF_MS = 50;
    private static final long RETRY_BACKOFF_MAX_MS = 500;
    private static final double JITTER = 0.2;
    private static final String BYSTANDER = "bystander";

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().withProxies());

    private FaultProxy proxy;

    @BeforeAll
    static void bystanderTopic() {
        KAFKA.cluster().createTopic(BYSTANDER, 1, 1);
    }

    @BeforeEach
    void quietProxy() {
        proxy = KAFKA.cluster().proxy(0).pass().latencyMs(0);
        proxy.resetCounters();
    }

    private static Map<String, Object> props(String clientId) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", KAFKA.cluster().proxiedBootstrapServers());
        p.put("client.id", clientId);
        p.put("allow.auto.create.topics", false);
        p.put("retry.backoff.ms", RETRY_BACKOFF_MS);
        p.put("retry.backoff.max.ms", RETRY_BACKOFF_MAX_MS);
        p.put("kmeta.metadata.jitter", JITTER);
        return p;
    }

    /**
     * The most MetadataRequests the backoff allows in {@code elapsedMs}: the first at once; then spacings of at least
     * {@code retry.backoff.ms} (twice: after news and after the first answer without it) doubling to
     * {@code retry.backoff.max.ms}, each shortened by the jitter - the ramp-up
     * requests are counted as if they cost no time at all; once at the cap, no two requests are closer than
     * {@code max * (1 - jitter)}. An answer that brings news (the bystander's topic) restarts the ramp.
     * Plus 2 for a request in flight at either end.
     */
    static long requestBound(long elapsedMs, int newsAnswers) {
        int rampUp = 2 + (int) Math.ceil(Math.log((double) RETRY_BACKOFF_MAX_MS / RETRY_BACKOFF_MS) / Math.log(2));
        long atCap = (long) Math.ceil(elapsedMs / (RETRY_BACKOFF_MAX_MS * (1 - JITTER)));
        return 1 + rampUp * (1 + newsAnswers) + atCap + 2;
    }

    /** What a storm did. */
    static final class Storm {
        final AtomicLong calls = new AtomicLong();
        final AtomicLong timeouts = new AtomicLong();
        final LongAccumulator slowestCallMs = new LongAccumulator(Math::max, 0);
        final Map<String, Throwable> unexpected = new ConcurrentHashMap<>();
        final List<Long> bystanderMs = new CopyOnWriteArrayList<>();
        final List<Long> requestAtMs = new CopyOnWriteArrayList<>();
        boolean bystander;
        long elapsedMs;

        /** The longest time between two MetadataRequests seen at the proxy (sampled every 10 ms). */
        long longestGapMs() {
            long longest = 0;
            for (int i = 1; i < requestAtMs.size(); i++) {
                longest = Math.max(longest, requestAtMs.get(i) - requestAtMs.get(i - 1));
            }
            return longest;
        }
    }

    /**
     * {@code threadsPerHandle} threads per handle, each calling awaitTopic(MISSING, 500 ms) until the storm ends.
     * With {@code bystander}, halfway, another thread looks up an existing topic nobody asked for yet (a new topic
     * skips the backoff: a healthy sender answers it at once, storm or not). A sampler notes when the proxy sees a
     * MetadataRequest.
     */
    private Storm storm(List<KafkaMetadata> handles, int threadsPerHandle, long startNanos, boolean bystander)
            throws Exception {
        Storm storm = new Storm();
        storm.bystander = bystander;
        ScheduledExecutorService side = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "it-storm-side");
            t.setDaemon(true);
            return t;
        });
        AtomicLong seen = new AtomicLong(proxy.requestCount(METADATA));
        side.scheduleAtFixedRate(() -> {
            long now = proxy.requestCount(METADATA);
            if (now != seen.getAndSet(now)) {
                storm.requestAtMs.add(millisSince(startNanos));
            }
        }, 0, 10, TimeUnit.MILLISECONDS);
        side.schedule(() -> {
            if (!bystander) {
                return;
            }
            long s = System.nanoTime();
            try {
                handles.get(0).awaitTopic(BYSTANDER, handles.get(0).newDeadline(Duration.ofSeconds(10)));
                storm.bystanderMs.add(millisSince(s));
            } catch (RuntimeException e) {
                storm.unexpected.putIfAbsent("bystander", e);
            }
        }, STORM_MS / 2, TimeUnit.MILLISECONDS);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        long endNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STORM_MS);
        for (KafkaMetadata handle : handles) {
            for (int i = 0; i < threadsPerHandle; i++) {
                Thread t = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    while (System.nanoTime() < endNanos) {
                        long s = System.nanoTime();
                        try {
                            handle.awaitTopic(MISSING, handle.newDeadline(Duration.ofMillis(CALL_BUDGET_MS)));
                            storm.unexpected.put("returned", new AssertionError("a missing topic was found"));
                        } catch (TimeoutException e) {
                            storm.timeouts.incrementAndGet();
                        } catch (RuntimeException e) {
                            storm.unexpected.putIfAbsent(e.getClass().getName(), e);
                        }
                        storm.calls.incrementAndGet();
                        storm.slowestCallMs.accumulate(millisSince(s));
                    }
                }, "it-storm-" + threads.size());
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }
        go.countDown();
        for (Thread t : threads) {
            t.join(STORM_MS + 30_000);
            assertFalse(t.isAlive(), t.getName() + " still runs");
        }
        storm.elapsedMs = millisSince(startNanos);
        side.shutdownNow();
        assertTrue(side.awaitTermination(15, TimeUnit.SECONDS));
        return storm;
    }

    private void assertWithinBackoff(String what, Storm storm, long requests) {
        long bound = requestBound(storm.elapsedMs, storm.bystander ? 1 : 0);
        report("%s: %d MetadataRequests in %d ms for %d awaitTopic calls by 200 threads (bound %d); slowest call %d ms;"
                        + " requests at %s ms; longest gap %d ms; bystander lookups %s ms",
                what, requests, storm.elapsedMs, storm.calls.get(), bound, storm.slowestCallMs.get(),
                storm.requestAtMs, storm.longestGapMs(), storm.bystanderMs);
        assertTrue(storm.unexpected.isEmpty(), "unexpected outcomes: " + storm.unexpected);
        assertEquals(storm.calls.get(), storm.timeouts.get(), "every wait ends in a timeout");
        assertTrue(storm.calls.get() >= 200 * (STORM_MS / CALL_BUDGET_MS) / 2, "calls: " + storm.calls.get());
        assertTrue(storm.slowestCallMs.get() < CALL_BUDGET_MS + 1_000, "slowest call " + storm.slowestCallMs.get());
        assertTrue(requests >= 5, "the topic was asked for again and again: " + requests);
        assertTrue(requests <= bound, requests + " requests > bound " + bound + " for " + storm.elapsedMs + " ms");
        assertTrue(requests * 50 < storm.calls.get(), requests + " requests for " + storm.calls.get() + " calls");
        // The storm must not stall the sender: it goes on asking at the capped backoff, and answers a new topic fast.
        assertTrue(storm.longestGapMs() <= RETRY_BACKOFF_MAX_MS + 1_500,
                "longest gap between requests " + storm.longestGapMs() + " ms: " + storm.requestAtMs);
        assertEquals(storm.bystander ? 1 : 0, storm.bystanderMs.size(), "bystander lookups: " + storm.bystanderMs);
        for (long ms : storm.bystanderMs) {
            assertTrue(ms < 1_000, "a lookup of an existing topic took " + ms + " ms during the storm");
        }
    }

    @Test
    void oneInstanceTwoHundredThreadsMakeABackoffBoundedStream() throws Exception {
        long start = System.nanoTime();
        try (KafkaMetadata m = KafkaMetadata.create(props("storm-1"))) {
            Storm storm = storm(List.of(m), 200, start, false);
            long requests = proxy.requestCount(METADATA);
            assertWithinBackoff("1 instance", storm, requests);
            assertEquals(0, m.stats().requestsFailed(), "the bound holds for a healthy broker");
            assertTrue(Math.abs(m.stats().requestsSent() - requests) <= 1,
                    "sent " + m.stats().requestsSent() + ", seen at the proxy " + requests);
            assertTrue(m.stats().requestsCoalesced() > 0, "callers were coalesced");
        }
    }

    @Test
    void twentySharedHandlesMakeOneStreamAndTheLastCloseStopsIt() throws Exception {
        List<KafkaMetadata> handles = new ArrayList<>();
        long start = System.nanoTime();
        // 20 producers start at once, each with its own client.id; same bootstrap and security: one instance.
        List<Thread> starters = new ArrayList<>();
        KafkaMetadata[] made = new KafkaMetadata[20];
        CountDownLatch go = new CountDownLatch(1);
        for (int i = 0; i < 20; i++) {
            int n = i;
            Thread t = new Thread(() -> {
                try {
                    go.await();
                    made[n] = KafkaMetadata.shared(props("producer-" + n));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "it-shared-" + i);
            starters.add(t);
            t.start();
        }
        go.countDown();
        for (Thread t : starters) {
            t.join(30_000);
        }
        for (KafkaMetadata h : made) {
            handles.add(h);
        }
        String senderId = handles.get(0).config().clientId();
        try {
            for (KafkaMetadata h : handles) {
                assertTrue(Handles.sameInstance(h, handles.get(0)), h + " vs " + handles.get(0));
            }
            assertEquals(1, kmetaThreads().stream().filter(n -> n.startsWith("kmeta-metadata-sender")).count(),
                    "one sender thread: " + kmetaThreads());

            Storm storm = storm(handles, 10, start, true);
            long requests = proxy.requestCount(METADATA);
            assertWithinBackoff("20 shared handles", storm, requests);
            assertEquals(0, handles.get(0).stats().requestsFailed());

            KafkaMetadata last = handles.get(19);
            for (int i = 0; i < 19; i++) {
                handles.get(i).close();
            }
            handles.get(0).close(); // closing a closed handle again must not take another reference away
            assertTrue(senderThreadAlive(senderId), "19 of 20 closed: the instance lives on");
            assertNotEquals(RefreshState.CLOSED, last.state());
            assertEquals(RefreshState.CLOSED, handles.get(0).state());
            assertInstanceOf(MetadataClosedException.class, assertThrows(KafkaException.class,
                    () -> handles.get(0).awaitTopic(MISSING, handles.get(0).newDeadline(Duration.ofMillis(100)))).getCause());
            KAFKA.cluster().createTopic("shared-alive", 2, 1);
            assertEquals(2, last.awaitTopic("shared-alive", last.newDeadline(Duration.ofSeconds(30))).partitionCount("shared-alive"));
            int v = last.requestUpdate();
            last.awaitUpdate(v, last.newDeadline(Duration.ofSeconds(10)));

            last.close();
            assertFalse(senderThreadAlive(senderId), "the last close stops the sender: " + kmetaThreads());
            assertEquals(List.of(), kmetaThreads());
            try (KafkaMetadata fresh = KafkaMetadata.shared(props("producer-late"))) {
                assertFalse(Handles.sameInstance(fresh, last), "a closed instance is never handed out again");
                assertEquals(2, fresh.awaitTopic("shared-alive", fresh.newDeadline(Duration.ofSeconds(30)))
                        .partitionCount("shared-alive"));
            }
            assertEquals(List.of(), kmetaThreads());
        } finally {
            handles.forEach(KafkaMetadata::close);
        }
    }
}
