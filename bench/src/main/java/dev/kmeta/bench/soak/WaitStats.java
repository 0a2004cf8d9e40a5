package dev.kmeta.bench.soak;

import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of the soak's waits: how they ended (answer, timeout by diagnosis cause, unexpected error), how many
 * returned later than deadline + tolerance, how many of those the machine does not explain (no stall of the JVM,
 * see {@link StallMeter}, and no wait of the thread for a CPU, see {@link RunQueue}, as long as the overshoot beyond
 * the tolerance), and the worst
 * overshoots. Thread-safe (adders and CAS maxima).
 */
final class WaitStats {
    private static final int KEPT_ERRORS = 10;

    private final long toleranceNs;
    private final LongAdder waits = new LongAdder();
    private final LongAdder answered = new LongAdder();
    private final LongAdder pastDeadline = new LongAdder();
    private final LongAdder unexplained = new LongAdder();
    private final LongAdder queuedExplained = new LongAdder();
    private final AtomicLong worstOvershootNs = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong worstUnexplainedNs = new AtomicLong();
    private volatile String worstUnexplained = "";
    private final StallMeter stalls;
    private final Map<String, LongAdder> timeouts = new ConcurrentHashMap<>();
    private final LongAdder unexpected = new LongAdder();
    private final Queue<String> firstUnexpected = new ConcurrentLinkedQueue<>();

    WaitStats(long toleranceMs, StallMeter stalls) {
        this.toleranceNs = TimeUnit.MILLISECONDS.toNanos(toleranceMs);
        this.stalls = stalls;
    }

    /**
     * One wait that began at {@code startNs} with {@code budgetMs} and returned at {@code endNs}.
     *
     * @param what         the topic and partition, for the report
     * @param timeoutCause the diagnosis cause if it timed out, else null
     */
    void record(String what, long startNs, long budgetMs, long endNs, String timeoutCause) {
        record(what, startNs, budgetMs, endNs, timeoutCause, 0);
    }

    /**
     * As {@link #record(String, long, long, long, String)}, with the time the waiting thread spent runnable but
     * without a CPU during the wait ({@link RunQueue}), which explains as much lateness as a JVM stall does.
     */
    void record(String what, long startNs, long budgetMs, long endNs, String timeoutCause, long queuedNs) {
        waits.increment();
        if (timeoutCause == null) {
            answered.increment();
        } else {
            timeouts.computeIfAbsent(timeoutCause, k -> new LongAdder()).increment();
        }
        long overshootNs = endNs - startNs - TimeUnit.MILLISECONDS.toNanos(budgetMs);
        worstOvershootNs.accumulateAndGet(overshootNs, Math::max);
        if (overshootNs > toleranceNs) {
            pastDeadline.increment();
            long stallNs = stalls.worstStallNs(startNs, endNs);
            if (queuedNs > stallNs) {
                queuedExplained.increment();
            }
            if (overshootNs > toleranceNs + Math.max(stallNs, queuedNs)) {
                unexplained.increment();
                if (overshootNs > worstUnexplainedNs.get()) {
                    worstUnexplainedNs.set(overshootNs);
                    worstUnexplained = String.format("%s, budget %d ms, %s, %.1f ms late, JVM stall %.1f ms, "
                            + "waited for a CPU %.1f ms", what, budgetMs, timeoutCause == null ? "answered"
                            : timeoutCause, overshootNs / 1e6, stallNs / 1e6, queuedNs / 1e6);
                }
            }
        }
    }

    /** A wait that ended with an error no fault of the soak should cause. */
    void unexpected(String what) {
        unexpected.increment();
        if (firstUnexpected.size() < KEPT_ERRORS) {
            firstUnexpected.add(what);
        }
    }

    StallMeter stalls() {
        return stalls;
    }

    long waits() {
        return waits.sum();
    }

    long answered() {
        return answered.sum();
    }

    long pastDeadline() {
        return pastDeadline.sum();
    }

    /** Waits past deadline + tolerance by more than a concurrent JVM stall explains. */
    long unexplained() {
        return unexplained.sum();
    }

    /** Late waits whose thread waited for a CPU longer than any JVM stall lasted. */
    long queuedExplained() {
        return queuedExplained.sum();
    }

    /** The worst of {@link #unexplained()}, described; "" if none. */
    String worstUnexplained() {
        return worstUnexplained;
    }

    /** The latest any wait returned after its deadline, in ms (negative: all returned before it). */
    double worstOvershootMs() {
        long worst = worstOvershootNs.get();
        return worst == Long.MIN_VALUE ? 0 : worst / 1e6;
    }

    /** Timeouts by diagnosis cause, sorted by cause. */
    Map<String, Long> timeouts() {
        Map<String, Long> sorted = new TreeMap<>();
        timeouts.forEach((cause, n) -> sorted.put(cause, n.sum()));
        return sorted;
    }

    long unexpected() {
        return unexpected.sum();
    }

    /** The first few unexpected errors. */
    String firstUnexpected() {
        return String.join("; ", firstUnexpected);
    }
}
