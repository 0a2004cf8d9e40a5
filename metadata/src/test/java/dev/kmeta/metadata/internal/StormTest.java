package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.Ticker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.time.Duration;

/**
 * The lookup storm (Pulsar's lesson): 200 threads x 1,000 sends to a topic that does not exist, each with a short
 * budget, against a broker that always answers {@code UNKNOWN_TOPIC_OR_PARTITION}, with a real sender thread on the
 * system clock. However many callers, the requests sent are bounded by the backoff alone: the first at once (plus the
 * new topic's one skip of the backoff), then spaced by {@code retry.backoff.ms} doubling to
 * {@code retry.backoff.max.ms} (jitter 0 here, so the bound is exact). And the storm must not hold the sender up: the
 * missing topic is asked again at least every {@code retry.backoff.max.ms} (+ slack) for as long as sends wait for it.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StormTest {
    private static final int THREADS = 200;
    private static final int CALLS = 1_000;
    private static final long BUDGET_MS = 5;
    private static final long BACKOFF_MS = 100;
    private static final long BACKOFF_MAX_MS = 1_000;
    /** Scheduling slack on a busy 2-core machine before a longer silence counts as the sender being held up. */
    private static final long STALL_SLACK_MS = 500;

    /**
     * The most requests the backoff allows in {@code elapsedMs}: 2 free (the first, bootstrap request and the new
     * topic's one skip of the backoff), then one per gap, the gaps at least {@code retry.backoff.ms} doubling to
     * {@code retry.backoff.max.ms}. (The manager's real gaps after an answer without news start at twice the base,
     * so this bound has slack.)
     */
    static int maxRequests(long elapsedMs) {
        int requests = 2;
        long at = 0;
        for (long gap = BACKOFF_MS; ; gap = Math.min(BACKOFF_MAX_MS, gap * 2)) {
            at += gap;
            if (at > elapsedMs) {
                return requests;
            }
            requests++;
        }
    }

    @Test
    void twoHundredThreadsWaitingForAMissingTopicMakeOnlyTheRequestsTheBackoffAllows() throws Exception {
        MetadataManager manager = new MetadataManager(MetadataConfig.from(Map.of("client.id", "storm",
                "retry.backoff.ms", String.valueOf(BACKOFF_MS), "retry.backoff.max.ms", String.valueOf(BACKOFF_MAX_MS),
                "kmeta.metadata.jitter", "0")), Ticker.system());
        FakeBroker broker = new FakeBroker(); // knows no topic: UNKNOWN_TOPIC_OR_PARTITION for every one
        List<Long> sentAtMs = new ArrayList<>(); // sender thread only, read after it ended
        long startNs = System.nanoTime();
        // The gap check below is 'the sender was never held up beyond the backoff': a plain parked thread's
        // lateness on this machine meanwhile is what the platform adds (2 cores at load 25 held one 1.3 s).
        LateWaits platform = LateWaits.start(startNs, 2, 50, BACKOFF_MAX_MS);
        SenderThread sender = new SenderThread(manager, r -> {
            sentAtMs.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs));
            return broker.respond(r);
        }, 0);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger timeouts = new AtomicInteger();
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            Thread t = new Thread(() -> {
                try {
                    if (!go.await(10, TimeUnit.SECONDS)) {
                        throw new AssertionError("never started");
                    }
                    for (int c = 0; c < CALLS; c++) {
                        try {
                            manager.awaitTopic("missing", manager.newDeadline(Duration.ofMillis(BUDGET_MS)));
                            throw new AssertionError("a topic the broker does not have was returned");
                        } catch (MetadataTimeoutException expected) {
                            timeouts.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    unexpected.compareAndSet(null, e);
                }
            }, "storm-" + i);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        sender.start();
        go.countDown();
        for (Thread t : threads) {
            t.join(60_000);
            assertFalse(t.isAlive(), t.getName() + " did not finish");
        }
        manager.close();
        platform.close();
        long stallMs = TimeUnit.NANOSECONDS.toMillis(platform.stallNs());
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertTrue(sender.awaitExit(5_000), "the sender thread did not end after close");
        long sent = manager.counters().requestsSent();
        int bound = maxRequests(elapsedMs);
        System.out.printf("StormTest: %d x %d waits (%d ms budget) in %d ms: %d requests sent (bound %d),"
                        + " %d coalesced, %d wait timeouts; requests at (ms from start) %s%n", THREADS, CALLS,
                BUDGET_MS, elapsedMs, sent, bound, manager.counters().requestsCoalesced(),
                manager.counters().waitTimeouts(), sentAtMs);
        assertNull(unexpected.get(), () -> "a storm thread failed: " + unexpected.get());
        assertNull(sender.error(), () -> "the sender failed: " + sender.error());
        assertEquals(THREADS * CALLS, timeouts.get());
        assertEquals(1, sender.maxOutstanding(), "at most one request in flight");
        assertEquals(sent, broker.requests.size());
        assertTrue(sent <= bound, sent + " requests in " + elapsedMs + " ms; the backoff allows at most " + bound);
        assertTrue(sent >= 4, "the missing topic must still be retried while sends wait for it: " + sent + " requests");
        assertTrue(broker.requests.stream().skip(1).allMatch(r -> r.topics().contains("missing")));
        for (int i = 1; i < sentAtMs.size(); i++) {
            long gap = sentAtMs.get(i) - sentAtMs.get(i - 1);
            assertTrue(gap <= BACKOFF_MAX_MS + STALL_SLACK_MS + stallMs, "no request for " + gap + " ms while 200"
                    + " threads waited (retry.backoff.max.ms is " + BACKOFF_MAX_MS + ", a plain parked thread was late"
                    + " by at most " + stallMs + " ms meanwhile): the sender was held up " + sentAtMs);
        }
    }
}
