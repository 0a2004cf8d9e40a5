package dev.kmeta.metadata.internal;

import dev.kmeta.faketime.FakeTicker;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.time.Duration;

/**
 * The lookup storm (Pulsar's lesson): 200 threads, each waiting again and again with a short budget for a topic that
 * does not exist, against a broker that always answers {@code UNKNOWN_TOPIC_OR_PARTITION}. However many callers, the
 * requests sent are bounded by the backoff alone: the first at once (plus the new topic's one skip of the backoff),
 * then spaced by {@code retry.backoff.ms} doubling to {@code retry.backoff.max.ms} (jitter 0 here, so the bound is
 * exact). And the storm must not hold the missing topic back: it is asked again at least every
 * {@code retry.backoff.max.ms} for as long as sends wait for it.
 *
 * <p>On fake time (issue 25): the 200 threads are real and park in the manager's waits on a {@link FakeTicker}; this
 * thread is the sender and the clock. Each step of {@value #STEP_MS} ms waits until all 200 are parked (so every
 * caller is in a wait when the sender acts), runs one sender round (poll, the request that is due, its answer), then
 * moves time on, which times out the waits due. The bound and the gaps are kmeta's own logic, so they are checked to
 * the fake millisecond without any allowance for the machine (the real-clock version needed a lateness meter and took
 * 6 s; this one makes ~120,000 waits in about a second).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StormTest {
    private static final int THREADS = 200;
    private static final long BUDGET_MS = 5;
    /** The sender's and the clock's step: each step times out every storm thread's wait. */
    private static final long STEP_MS = BUDGET_MS;
    /** The ramp (100 + 200 + 400 + 800 ms) and then three gaps at the cap. */
    private static final long WINDOW_MS = 4_500;
    private static final long BACKOFF_MS = 100;
    private static final long BACKOFF_MAX_MS = 1_000;

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
        FakeTicker ticker = new FakeTicker();
        MetadataManager manager = new MetadataManager(MetadataConfig.from(Map.of("client.id", "storm",
                "retry.backoff.ms", String.valueOf(BACKOFF_MS), "retry.backoff.max.ms", String.valueOf(BACKOFF_MAX_MS),
                "kmeta.metadata.jitter", "0")), ticker);
        manager.setWaker(() -> { }); // this thread is the sender: it runs a round at every step anyway
        FakeBroker broker = new FakeBroker(); // knows no topic: UNKNOWN_TOPIC_OR_PARTITION for every one
        List<Long> sentAtMs = new ArrayList<>();
        AtomicBoolean over = new AtomicBoolean();
        AtomicInteger timeouts = new AtomicInteger();
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            Thread t = new Thread(() -> {
                try {
                    while (!over.get()) {
                        try {
                            manager.awaitTopic("missing", Deadline.after(Duration.ofMillis(BUDGET_MS), ticker));
                            throw new AssertionError("a topic the broker does not have was returned");
                        } catch (MetadataTimeoutException expected) {
                            timeouts.incrementAndGet();
                        }
                    }
                } catch (MetadataClosedException atTheEnd) {
                    // close() released the last wait
                } catch (Throwable e) {
                    unexpected.compareAndSet(null, e);
                }
            }, "storm-" + i);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        long startMs = ticker.nowMs();
        for (long elapsed = 0; elapsed <= WINDOW_MS; elapsed += STEP_MS) {
            ticker.awaitParked(THREADS);
            long now = ticker.nowMs();
            manager.poll(now);
            RefreshRequest r = manager.beginRefresh(now);
            if (r != null) {
                sentAtMs.add(now - startMs);
                manager.onResponse(r, broker.respond(r), now);
            }
            ticker.advanceMs(STEP_MS);
        }
        long elapsedMs = ticker.nowMs() - startMs;
        over.set(true);
        manager.close();
        for (Thread t : threads) {
            t.join(10_000);
            assertFalse(t.isAlive(), t.getName() + " did not finish");
        }
        long sent = manager.counters().requestsSent();
        int bound = maxRequests(elapsedMs);
        System.out.printf("StormTest: %d threads, %d waits (%d ms budget) in %d fake ms: %d requests sent (bound %d),"
                        + " %d coalesced; requests at (ms from start) %s%n", THREADS, timeouts.get(), BUDGET_MS,
                elapsedMs, sent, bound, manager.counters().requestsCoalesced(), sentAtMs);
        assertNull(unexpected.get(), () -> "a storm thread failed: " + unexpected.get());
        assertTrue(timeouts.get() >= THREADS * (WINDOW_MS / BUDGET_MS), "waits: " + timeouts.get());
        assertEquals(sent, broker.requests.size());
        assertTrue(sent <= bound, sent + " requests in " + elapsedMs + " ms; the backoff allows at most " + bound
                + ": " + sentAtMs);
        assertTrue(sent >= 6, "the missing topic must still be retried while sends wait for it: " + sentAtMs);
        assertTrue(broker.requests.stream().skip(1).allMatch(r -> r.topics().contains("missing")));
        for (int i = 1; i < sentAtMs.size(); i++) {
            long gap = sentAtMs.get(i) - sentAtMs.get(i - 1);
            assertTrue(gap <= BACKOFF_MAX_MS + STEP_MS, "no request for " + gap + " ms while " + THREADS
                    + " threads waited (retry.backoff.max.ms is " + BACKOFF_MAX_MS + "): " + sentAtMs);
        }
        long last = sentAtMs.get(sentAtMs.size() - 1);
        assertTrue(elapsedMs - last <= BACKOFF_MAX_MS + STEP_MS, "no request since " + last + " ms: " + sentAtMs);
    }
}
