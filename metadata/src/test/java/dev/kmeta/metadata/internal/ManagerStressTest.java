package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.Ticker;
import dev.kmeta.metadata.TopicException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.time.Duration;

/**
 * The manager under load for a few seconds: a real sender thread (answers from a fake broker after a random latency
 * of up to 2 ms on a responder thread, one in ten requests failing, leaders moving and partitions losing their leader
 * now and then) and 32 application threads doing random waits with short budgets (5-50 ms) over 310 topics (200 that
 * exist, 100 that do not, 10 denied), update requests, invalidations, leader hints and snapshot reads. Checked:
 * <ul>
 *   <li>every wait returns by its deadline + 50 ms + what the machine explains ({@link LateWaits}: the longest
 *       stall of plain control threads parking meanwhile (1 ms at a time, and until deadlines of the waits' lengths),
 *       plus the waiting thread's own run-queue time and the JVM's GC time during the wait); the worst overshoot is
 *       reported;</li>
 *   <li>what a wait returns answers it (the topic, the partition with a leader); errors only for denied topics;</li>
 *   <li>no thread ever reads a version lower than one already read by any thread before its read began;</li>
 *   <li>at most one request is ever outstanding between {@code beginRefresh} and
 *       {@code onResponse}/{@code onFailure};</li>
 *   <li>{@code waitersNow()} is back to 0 once the threads stop;</li>
 *   <li>after {@code close()}, threads parked in long waits are released with "closed" and every thread ends.</li>
 * </ul>
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ManagerStressTest {
    private static final int APP_THREADS = 32;
    private static final long RUN_MS = Long.getLong("kmeta.stress.ms", 5_000);
    /**
     * Operations before the {@link #RUN_MS} measured, whose waits are not held to the deadline check: the first
     * timeouts load and initialize classes (diagnosis, exceptions) while other threads wait on their class-init locks,
     * and the JIT compiles the hot paths. Seen at load ~18: a wait 280 ms late right at the start, blocked without
     * run-queue time longer than any control thread stalled.
     */
    private static final long WARMUP_MS = 1_000;
    /** The shortest and longest budget of a wait, and of a control thread's park. */
    private static final long MIN_BUDGET_MS = 5;
    private static final long MAX_BUDGET_MS = 50;
    private static final int EXISTING = 200;
    private static final int MISSING = 100;
    private static final int DENIED = 10;

    private static String topic(int i) {
        if (i < EXISTING) {
            return String.format("t-%03d", i);
        }
        return i < EXISTING + MISSING ? String.format("m-%03d", i - EXISTING) : "d-" + (i - EXISTING - MISSING);
    }

    /** The broker side: the topics, and what changes between answers. Used by the responder thread only. */
    private static final class World {
        final FakeBroker broker = new FakeBroker();
        final Random random = new Random(42);
        final int[] epochs = new int[EXISTING];

        World() {
            for (int i = 0; i < EXISTING; i++) {
                broker.topic(topic(i), 1 + i % 8, 1);
                epochs[i] = 1;
            }
            for (int i = 0; i < DENIED; i++) {
                broker.denied.add(topic(EXISTING + MISSING + i));
            }
        }

        /** One answer, or null (one in ten fails); between answers a leader may move or a partition lose its leader. */
        RefreshResponse answer(RefreshRequest r) {
            if (random.nextInt(20) == 0) {
                int t = random.nextInt(EXISTING);
                int p = random.nextInt(1 + t % 8);
                int leader = random.nextInt(4) == 0 ? 9 : random.nextInt(3); // broker 9 is not listed: no leader
                broker.leader(topic(t), p, leader, ++epochs[t]);
            }
            RefreshResponse response = broker.respond(r);
            return random.nextInt(10) == 0 ? null : response;
        }
    }

    /** What the application threads saw. */
    private static final class Observed {
        final LateWaits late;
        final LongAdder waits = new LongAdder();
        final LongAdder judged = new LongAdder();
        final LongAdder answered = new LongAdder();
        final LongAdder timeouts = new LongAdder();
        final LongAdder refused = new LongAdder();
        final LongAdder reads = new LongAdder();
        final AtomicLong worstOvershootNs = new AtomicLong(Long.MIN_VALUE);
        final AtomicLong worstWarmupOvershootNs = new AtomicLong(Long.MIN_VALUE);
        final AtomicInteger highestVersionSeen = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        final long judgeFromNs;

        Observed(LateWaits late, long judgeFromNs) {
            this.late = late;
            this.judgeFromNs = judgeFromNs;
        }

        /**
         * A wait of {@code budgetMs} for {@code what} that started at {@code startNs} returned now;
         * {@code before} was taken just before the call. Held to the deadline check unless it started in the warm-up.
         */
        void waited(String what, long startNs, long budgetMs, LateWaits.Stamp before) {
            long overshootNs = System.nanoTime() - startNs - TimeUnit.MILLISECONDS.toNanos(budgetMs);
            waits.increment();
            if (startNs - judgeFromNs < 0) {
                worstWarmupOvershootNs.accumulateAndGet(overshootNs, Math::max);
                return;
            }
            judged.increment();
            worstOvershootNs.accumulateAndGet(overshootNs, Math::max);
            if (overshootNs > 0) {
                late.record(String.format("%s (%d ms, +%d ms into the run)", what, budgetMs,
                        TimeUnit.NANOSECONDS.toMillis(startNs - judgeFromNs)), overshootNs, before);
            }
        }

        /** No stale read: a version read now is at least the highest any thread had read before. */
        void saw(int floor, Cluster c) {
            if (c.version() < floor) {
                throw new AssertionError("stale read: version " + c.version() + " after " + floor + " was seen");
            }
            highestVersionSeen.accumulateAndGet(c.version(), Math::max);
        }
    }

    @Test
    void manyThreadsAgainstARealSenderKeepEveryDeadlineAndEveryInvariant() throws Exception {
        MetadataManager manager = new MetadataManager(MetadataConfig.from(Map.of("client.id", "stress",
                "retry.backoff.ms", "10", "retry.backoff.max.ms", "100", "metadata.max.age.ms", "1000",
                "kmeta.metadata.leaderless.refresh.ms", "20", "metadata.max.idle.ms", "5000")), Ticker.system());
        World world = new World();
        SenderThread sender = new SenderThread(manager, world::answer, 2_000).start();
        long judgeFromNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WARMUP_MS);
        LateWaits lateness = LateWaits.start(judgeFromNs, 2, MIN_BUDGET_MS, MAX_BUDGET_MS);
        Observed seen = new Observed(lateness, judgeFromNs);
        long endNs = judgeFromNs + TimeUnit.MILLISECONDS.toNanos(RUN_MS);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < APP_THREADS; i++) {
            threads.add(start("app-" + i, () -> {
                while (System.nanoTime() - endNs < 0) {
                    oneOperation(manager, seen);
                }
            }, seen));
        }
        for (Thread t : threads) {
            t.join(WARMUP_MS + RUN_MS + 30_000);
            assertFalse(t.isAlive(), t.getName() + " is stuck");
        }
        lateness.close();
        long waitersAfter = manager.counters().waitersNow();
        long sent = manager.counters().requestsSent();

        // Close while threads are parked in long waits: each is released with "closed", and every thread ends.
        int parked = 8;
        CountDownLatch released = new CountDownLatch(parked);
        AtomicInteger closedSeen = new AtomicInteger();
        List<Thread> late = new ArrayList<>();
        for (int i = 0; i < parked; i++) {
            int n = i;
            late.add(start("late-" + i, () -> {
                try {
                    if (n % 2 == 0) {
                        manager.awaitTopic(topic(EXISTING + n), manager.newDeadline(Duration.ofSeconds(30))); // a missing topic
                    } else {
                        manager.awaitUpdate(manager.fetch().version() + 1_000, manager.newDeadline(Duration.ofSeconds(30)));
                    }
                } catch (MetadataClosedException expected) {
                    closedSeen.incrementAndGet();
                }
                released.countDown();
            }, seen));
        }
        long parkDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (manager.counters().waitersNow() < parked && System.nanoTime() - parkDeadline < 0) {
            Thread.onSpinWait();
        }
        assertEquals(parked, manager.counters().waitersNow(), "the late threads did not all get to their wait");
        long closeNs = System.nanoTime();
        manager.close();
        assertTrue(released.await(5, TimeUnit.SECONDS), "close did not release every parked waiter");
        long releaseMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closeNs);
        for (Thread t : late) {
            t.join(5_000);
            assertFalse(t.isAlive(), t.getName() + " did not end after close");
        }
        assertTrue(sender.awaitExit(5_000), "the sender thread did not end after close");

        System.out.printf("ManagerStressTest: %d ms after %d ms of warm-up (worst overshoot then %.1f ms), %d app"
                        + " threads: %d waits (%d answered, %d timed out, %d refused),"
                        + " %d reads, worst overshoot past a deadline %.1f ms (control threads' worst stall %.1f ms,"
                        + " a late wait's longest run-queue + GC time %.1f ms), %d requests (%d failed, max outstanding"
                        + " %d), highest version %d, close released %d parked waiters in %d ms%n", RUN_MS, WARMUP_MS,
                seen.worstWarmupOvershootNs.get() / 1e6, APP_THREADS, seen.waits.sum(), seen.answered.sum(),
                seen.timeouts.sum(), seen.refused.sum(), seen.reads.sum(),
                seen.worstOvershootNs.get() / 1e6, lateness.stallNs() / 1e6, lateness.maxHeldUpNs() / 1e6, sent,
                manager.counters().requestsFailed(), sender.maxOutstanding(),
                seen.highestVersionSeen.get(), closedSeen.get(), releaseMs);
        assertNull(seen.failure.get(), () -> "an application thread failed: " + seen.failure.get());
        assertNull(sender.error(), () -> "the sender failed: " + sender.error());
        assertEquals(1, sender.maxOutstanding(), "more than one request was in flight at once");
        assertEquals(0, waitersAfter, "waitersNow() after every wait returned");
        assertEquals(parked, closedSeen.get(), "every parked waiter must end with MetadataClosedException");
        String tooLate = lateness.violation(seen.judged.sum());
        assertNull(tooLate, tooLate);
        assertTrue(seen.answered.sum() > 1_000 && seen.timeouts.sum() > 100 && seen.refused.sum() > 10,
                "the load did not exercise answers, timeouts and refusals");
        assertTrue(sent > 50 && manager.counters().requestsFailed() > 0, "the sender was barely exercised");
    }

    private static Thread start(String name, Runnable body, Observed seen) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                seen.failure.compareAndSet(null, new AssertionError(name + " failed", e));
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void oneOperation(MetadataManager manager, Observed seen) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int i = random.nextInt(EXISTING + MISSING + DENIED);
        String topic = topic(i);
        int dice = random.nextInt(100);
        if (dice < 45) {
            int partition = random.nextBoolean() ? MetadataClient.ANY_PARTITION : random.nextInt(10);
            awaitTopic(manager, seen, topic, partition, i >= EXISTING + MISSING);
        } else if (dice < 60) {
            awaitUpdate(manager, seen);
        } else if (dice < 70) {
            manager.invalidate(topic, random.nextInt(8));
        } else if (dice < 80) {
            manager.onLeaderHint(topic(random.nextInt(EXISTING)), random.nextInt(8), random.nextInt(3),
                    random.nextInt(1, 30), null);
        } else {
            int floor = seen.highestVersionSeen.get();
            seen.saw(floor, manager.fetch());
            seen.reads.increment();
        }
    }

    private static void awaitTopic(MetadataManager manager, Observed seen, String topic, int partition,
                                   boolean denied) {
        long budgetMs = ThreadLocalRandom.current().nextLong(MIN_BUDGET_MS, MAX_BUDGET_MS + 1);
        int floor = seen.highestVersionSeen.get();
        String what = "awaitTopic(" + topic + ", " + partition + ")";
        LateWaits.Stamp before = LateWaits.stamp();
        long startNs = System.nanoTime();
        try {
            Cluster c = manager.awaitTopic(topic, partition, manager.newDeadline(Duration.ofMillis(budgetMs)));
            seen.waited(what, startNs, budgetMs, before);
            seen.saw(floor, c);
            assertFalse(denied, "a denied topic was returned");
            assertTrue(c.partitionCount(topic) > 0, "returned without the topic");
            if (partition != MetadataClient.ANY_PARTITION) {
                PartitionMetadata p = c.partition(topic, partition);
                assertTrue(p != null && p.hasLeader(), "returned without a leader for the partition");
            }
            seen.answered.increment();
        } catch (MetadataTimeoutException e) {
            seen.waited(what, startNs, budgetMs, before);
            seen.timeouts.increment();
        } catch (TopicException e) {
            seen.waited(what, startNs, budgetMs, before);
            assertTrue(denied, () -> "refused a topic that is not denied: " + e);
            seen.refused.increment();
        }
    }

    private static void awaitUpdate(MetadataManager manager, Observed seen) {
        long budgetMs = ThreadLocalRandom.current().nextLong(MIN_BUDGET_MS, MAX_BUDGET_MS + 1);
        int floor = seen.highestVersionSeen.get();
        int version = manager.requestUpdate();
        String what = "awaitUpdate(" + version + ")";
        LateWaits.Stamp before = LateWaits.stamp();
        long startNs = System.nanoTime();
        try {
            manager.awaitUpdate(version, manager.newDeadline(Duration.ofMillis(budgetMs)));
            seen.waited(what, startNs, budgetMs, before);
            Cluster c = manager.fetch();
            seen.saw(floor, c);
            assertTrue(c.version() > version, "awaitUpdate returned before the version moved");
            seen.answered.increment();
        } catch (MetadataTimeoutException e) {
            seen.waited(what, startNs, budgetMs, before);
            seen.timeouts.increment();
        }
    }
}
