package dev.kmeta.sender.matrix;

import org.apache.kafka.common.KafkaException;
import dev.kmeta.lateness.LatenessBound;
import dev.kmeta.testkit.RunQueue;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.time.Duration;

/**
 * Application threads that keep calling {@code awaitTopic} with short budgets, as producers' {@code send()}s do, for as
 * long as a scenario runs. Each thread goes round the targets (a topic, or one partition of it), one wait per target,
 * with its own budget, and pauses 20 ms between waits so that cache hits do not eat the two CPUs the brokers need.
 *
 * <p>Every wait is recorded: how late it returned past its deadline (the overshoot; 0 when it returned in time), and
 * how it ended (an answer, a timeout with its diagnosis, closed, or anything else, which is a failure), and how long
 * the waiting thread spent runnable without a CPU, and on one, during the wait ({@link RunQueue}), for
 * {@link OvershootBound}. A thread stops at {@link #stop()}, or when its client is closed.
 *
 * <p>Thread-safe: the counters are written by the load threads and read by the test at any time.
 */
final class Load {
    /** One thing to wait for. */
    static final class Target {
        final String topic;
        final int partition;

        private Target(String topic, int partition) {
            this.topic = topic;
            this.partition = partition;
        }

        static Target topic(String topic) {
            return new Target(topic, MetadataClient.ANY_PARTITION);
        }

        static Target partition(String topic, int partition) {
            return new Target(topic, partition);
        }

        @Override
        public String toString() {
            return partition == MetadataClient.ANY_PARTITION ? topic : topic + "-" + partition;
        }
    }

    private static final long PACE_NS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long JOIN_MS = 10_000;

    private final KafkaMetadata client;
    private final List<Target> targets;
    private final Hiccups stalls;
    private final List<Thread> threads = new ArrayList<>();
    private final Queue<LatenessBound.Wait> recorded = new ConcurrentLinkedQueue<>();
    private final AtomicLong maxOvershootNs = new AtomicLong();
    private final AtomicLong maxRunQueueNs = new AtomicLong(-1);
    private final LongAdder waits = new LongAdder();
    private final LongAdder answers = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final Map<String, Map<Diagnosis.Cause, LongAdder>> causes = new ConcurrentHashMap<>();
    private final Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    private final Map<String, Long> endedByCloseNs = new ConcurrentHashMap<>();
    private volatile boolean running = true;

    private Load(KafkaMetadata client, List<Target> targets, Hiccups stalls) {
        this.client = client;
        this.targets = List.copyOf(targets);
        this.stalls = stalls;
    }

    /**
     * Starts {@code budgetsMs.length} threads on {@code client}, thread i waiting {@code budgetsMs[i]} ms at most per
     * wait; each starts at another target so that all targets are asked from the first round. How late the pauses
     * between waits wake up goes to {@code stalls}.
     */
    static Load start(KafkaMetadata client, String name, List<Target> targets, Hiccups stalls, long... budgetsMs) {
        Load load = new Load(client, targets, stalls);
        for (int i = 0; i < budgetsMs.length; i++) {
            long budgetMs = budgetsMs[i];
            int first = i;
            Thread t = new Thread(() -> load.run(budgetMs, first), "matrix-load-" + name + "-" + i);
            t.setDaemon(true);
            load.threads.add(t);
        }
        load.threads.forEach(Thread::start);
        return load;
    }

    private void run(long budgetMs, int first) {
        for (int i = first; running; i++) {
            Target target = targets.get(i % targets.size());
            if (!waitOnce(target, budgetMs)) {
                return;
            }
        }
    }

    /** One wait; false when the client is closed (the thread ends). */
    private boolean waitOnce(Target target, long budgetMs) {
        long runQueueBeforeNs = RunQueue.waitedNs();
        long ranBeforeNs = RunQueue.ranNs();
        Deadline deadline = client.newDeadline(Duration.ofMillis(budgetMs));
        try {
            client.awaitTopic(target.topic, target.partition, deadline);
            answers.increment();
        } catch (KafkaMetadataTimeoutException e) {
            timeouts.increment();
            causes.computeIfAbsent(target.topic, t -> new ConcurrentHashMap<>())
                    .computeIfAbsent(e.diagnosis().cause(), c -> new LongAdder()).increment();
        } catch (KafkaException e) {
            if (!(e.getCause() instanceof MetadataClosedException)) {
                throw e;
            }
            endedByCloseNs.put(Thread.currentThread().getName(), System.nanoTime());
            return false;
        } catch (RuntimeException | Error e) {
            unexpected.add(new AssertionError("wait for " + target + " (" + budgetMs + " ms) failed", e));
        } finally {
            long overshootNs = System.nanoTime() - deadline.deadlineNs();
            record(target + " (" + budgetMs + " ms)", overshootNs, since(runQueueBeforeNs, RunQueue.waitedNs()),
                    since(ranBeforeNs, RunQueue.ranNs()));
        }
        pause();
        return true;
    }

    /** Paces the loop (a cache hit returns at once: do not spin), and measures this thread's own scheduling. */
    private void pause() {
        long dueNs = System.nanoTime() + PACE_NS;
        for (long left = PACE_NS; left > 0; left = dueNs - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
        stalls.record(System.nanoTime() - dueNs);
    }

    /** {@code afterNs - beforeNs} of a {@link RunQueue} counter, or -1 where it is unknown. */
    private static long since(long beforeNs, long afterNs) {
        return beforeNs < 0 || afterNs < 0 ? -1 : Math.max(0, afterNs - beforeNs);
    }

    private void record(String what, long overshootNs, long runQueueNs, long ranNs) {
        waits.increment();
        long late = Math.max(0, overshootNs);
        recorded.add(new LatenessBound.Wait(what, late, runQueueNs, ranNs));
        maxOvershootNs.accumulateAndGet(late, Math::max);
        maxRunQueueNs.accumulateAndGet(runQueueNs, Math::max);
    }

    /** Stops every thread after its current wait (each ends within its budget) and waits for them. */
    Load stop() {
        running = false;
        join();
        return this;
    }

    /** Waits (bounded) for every thread to end: after {@link #stop()}, or once the client is closed. */
    void join() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(JOIN_MS);
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }

    /** Threads still running. */
    long alive() {
        return threads.stream().filter(Thread::isAlive).count();
    }

    int threadCount() {
        return threads.size();
    }

    long waits() {
        return waits.sum();
    }

    long answers() {
        return answers.sum();
    }

    long timeouts() {
        return timeouts.sum();
    }

    /** How many timeouts of waits for {@code topic} had this cause. */
    long timeouts(String topic, Diagnosis.Cause cause) {
        Map<Diagnosis.Cause, LongAdder> byCause = causes.get(topic);
        LongAdder n = byCause == null ? null : byCause.get(cause);
        return n == null ? 0 : n.sum();
    }

    /** Timeout causes by topic, for messages. */
    String causes() {
        return causes.toString();
    }

    /** Waits that failed with something other than an answer, a timeout or close: each is a defect. */
    List<Throwable> unexpected() {
        return new ArrayList<>(unexpected);
    }

    /** When each thread that ended because the client closed saw it ({@code System.nanoTime()}). */
    Map<String, Long> endedByCloseNs() {
        return Map.copyOf(endedByCloseNs);
    }

    /** Every wait recorded so far: its overshoot and run-queue time, for {@link OvershootBound}. */
    List<LatenessBound.Wait> recorded() {
        return new ArrayList<>(recorded);
    }

    long maxOvershootMs() {
        return TimeUnit.NANOSECONDS.toMillis(maxOvershootNs.get());
    }

    /** The overshoot at this quantile (0..1) of every wait recorded, in ms. */
    double overshootQuantileMs(double q) {
        List<Long> sorted = new ArrayList<>();
        recorded.forEach(w -> sorted.add(w.overshootNs()));
        if (sorted.isEmpty()) {
            return 0;
        }
        Collections.sort(sorted);
        int i = (int) Math.min(sorted.size() - 1, Math.floor(q * sorted.size()));
        return sorted.get(i) / 1e6;
    }

    @Override
    public String toString() {
        long runQueueNs = maxRunQueueNs.get();
        return String.format("%d waits (%d answered, %d timed out), overshoot p50 %.1f / p99 %.1f / max %d ms,"
                        + " longest run-queue time of a wait %s",
                waits(), answers(), timeouts(), overshootQuantileMs(0.5), overshootQuantileMs(0.99), maxOvershootMs(),
                runQueueNs < 0 ? "unknown" : String.format("%.1f ms", runQueueNs / 1e6));
    }
}
