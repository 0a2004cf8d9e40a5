package dev.kmeta.lateness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.concurrent.TimeUnit;

/**
 * The tests' one lateness check: a wait may return at most {@link #SLACK_MS} past its deadline beyond what the
 * machine, not kmeta, did meanwhile ({@link Rule}). What the machine did is read from two sources: the longest stall
 * of a plain parked control thread over the same span (measured by the test), and the waiting thread's own time
 * runnable without a CPU, from Linux's
 * {@code /proc/thread-self/schedstat} ({@link #runQueueNs()}; -1 where that does not exist). A waiter that kmeta keeps
 * parked or blocked past its deadline accumulates no run-queue time, so it fails; a waiter woken on time that then
 * waits for one of two busy CPUs is excused by its own run-queue time.
 *
 * <p>For tests on real brokers only (sender's fault matrix), where the machine's lateness is part of the world: tests
 * of kmeta's own timing run on a {@code FakeTicker} and need none of this (issue 25; metadata's stress and storm tests
 * no longer use it). In metadata's test jar (package {@code dev.kmeta.lateness}, nothing else of metadata's tests),
 * as testkit is built on Kafka's server artifacts. Stateless and thread-safe.
 */
public final class LatenessBound {
    /** The 50 ms: how late a wait may be beyond what the machine explains. */
    public static final long SLACK_MS = 50;
    private static final long SLACK_NS = TimeUnit.MILLISECONDS.toNanos(SLACK_MS);
    private static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");

    private LatenessBound() {
    }

    /**
     * One wait that may have returned after its deadline.
     *
     * @param what        what it waited for, and its budget, for messages
     * @param overshootNs how long after its deadline it returned (0 or less: in time)
     * @param runQueueNs  the waiting thread's run-queue time from just before the call to just after it returned, or
     *                    -1 if unknown
     * @param ranNs       the waiting thread's time on a CPU over the same span, or -1 if unknown (for messages)
     */
    public record Wait(String what, long overshootNs, long runQueueNs, long ranNs) {
        /** Its run-queue time, 0 if unknown. */
        long knownRunQueueNs() {
            return Math.max(0, runQueueNs);
        }
    }

    /** How much of what the machine did a wait is excused. */
    public enum Rule {
        /** The larger of the stall and the wait's own run-queue time: sender's fault matrix. */
        LARGER_OF_STALL_AND_RUN_QUEUE {
            @Override
            long excusedNs(Wait w, long stallNs) {
                return Math.max(stallNs, w.knownRunQueueNs());
            }

            @Override
            String explain(Wait w, long stallNs) {
                return String.format("max(longest stall of a plain parked thread in the scenario %.1f ms, this wait's"
                        + " own run-queue time %s)", ms(stallNs), msOrUnknown(w.runQueueNs()));
            }
        };

        /** What the machine did that excuses {@code w}, given the longest stall of a control thread. */
        abstract long excusedNs(Wait w, long stallNs);

        /** The terms of {@link #excusedNs}, with their values, for messages. */
        abstract String explain(Wait w, long stallNs);

        /** How late {@code w} may return, given the longest stall of a control thread. */
        public long allowedNs(Wait w, long stallNs) {
            return SLACK_NS + excusedNs(w, stallNs);
        }

        /**
         * Null if every wait in {@code waits} kept its bound; else a message on the wait that exceeded it most (its
         * overshoot, the bound and its terms, its CPU time) and how many of the {@code total} waits made did.
         */
        public String violation(Collection<Wait> waits, long stallNs, long total) {
            Wait worst = null;
            long worstExcessNs = 0;
            int over = 0;
            for (Wait w : waits) {
                long excessNs = w.overshootNs() - allowedNs(w, stallNs);
                if (excessNs > 0) {
                    over++;
                    if (worst == null || excessNs > worstExcessNs) {
                        worst = w;
                        worstExcessNs = excessNs;
                    }
                }
            }
            return worst == null ? null : String.format("%d of %d waits returned too late; worst: %s returned %.1f ms"
                            + " after its deadline, bound %.1f ms = %d ms + %s (ran %s on a CPU during the wait)",
                    over, total, worst.what(), ms(worst.overshootNs()), ms(allowedNs(worst, stallNs)), SLACK_MS,
                    explain(worst, stallNs), msOrUnknown(worst.ranNs()));
        }
    }

    /** Nanoseconds the calling thread has waited on a run queue since it started, or -1 if unknown. */
    public static long runQueueNs() {
        return schedstat(1);
    }

    /** Nanoseconds the calling thread has run on a CPU since it started, or -1 if unknown. */
    public static long ranNs() {
        return schedstat(0);
    }

    /** {@code afterNs - beforeNs} of a schedstat counter, or -1 where either is unknown. */
    public static long since(long beforeNs, long afterNs) {
        return beforeNs < 0 || afterNs < 0 ? -1 : afterNs - beforeNs;
    }

    private static long schedstat(int field) {
        try {
            String[] fields = Files.readString(SCHEDSTAT).trim().split("\\s+");
            return Long.parseLong(fields[field]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static String msOrUnknown(long ns) {
        return ns < 0 ? "unknown (no /proc/thread-self/schedstat)" : String.format("%.1f ms", ms(ns));
    }

    private static double ms(long ns) {
        return ns / 1e6;
    }
}
