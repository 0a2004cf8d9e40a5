package dev.kmeta.sender.matrix;

import java.util.Collection;
import java.util.concurrent.TimeUnit;

/**
 * The matrix's lateness check (b), per wait: a wait may return at most {@link #SLACK_MS} past its deadline beyond
 * the larger of two things the machine, not kmeta, did meanwhile: the longest stall of a plain parked thread in the
 * same scenario ({@link Hiccups}), and the time the waiting thread itself spent runnable without a CPU during this
 * wait ({@link RunQueue}). A waiter that kmeta keeps parked or blocked past its deadline accumulates no run-queue
 * time, so it fails unless every parked thread was stalled as long; a waiter woken on time that then waits for one of
 * two busy CPUs is excused by its own run-queue time. Where the run-queue time is unknown (no
 * {@code /proc/thread-self/schedstat}) the stall alone counts. Stateless and thread-safe.
 */
final class OvershootBound {
    /** The 50 ms: how late a wait may be beyond what the machine explains. */
    static final long SLACK_MS = 50;
    private static final long SLACK_NS = TimeUnit.MILLISECONDS.toNanos(SLACK_MS);

    /**
     * One wait as the load recorded it.
     *
     * @param target     what it waited for, and its budget, for messages
     * @param overshootNs how long after its deadline it returned (0 if in time)
     * @param runQueueNs the waiting thread's run-queue time from just before the call to just after it returned, or -1
     *                   if unknown
     * @param ranNs      the waiting thread's time on a CPU over the same span, or -1 if unknown (for messages)
     */
    record Wait(String target, long overshootNs, long runQueueNs, long ranNs) {
    }

    private OvershootBound() {
    }

    /** How late {@code wait} may return, given the scenario's longest stall of a plain parked thread. */
    static long allowedNs(Wait wait, long stallNs) {
        return SLACK_NS + Math.max(stallNs, Math.max(0, wait.runQueueNs()));
    }

    /**
     * Null if every wait kept its bound; else a message on the wait that exceeded it most (its overshoot, bound,
     * stall, run-queue and CPU time) and how many did, naming {@code scenario} and {@code who}.
     */
    static String violation(String scenario, String who, long stallNs, Collection<Wait> waits) {
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
        if (worst == null) {
            return null;
        }
        return String.format("%s: %s: %d of %d waits returned too late; worst: %s returned %.1f ms after its deadline,"
                        + " bound %.1f ms = %d ms + max(longest stall of a plain parked thread in the scenario %.1f ms,"
                        + " this wait's own run-queue time %s) (ran %s on a CPU during the wait)",
                scenario, who, over, waits.size(), worst.target(), ms(worst.overshootNs()),
                ms(allowedNs(worst, stallNs)), SLACK_MS, ms(stallNs), msOrUnknown(worst.runQueueNs()),
                msOrUnknown(worst.ranNs()));
    }

    private static double ms(long ns) {
        return ns / 1e6;
    }

    private static String msOrUnknown(long ns) {
        return ns < 0 ? "unknown (no /proc/thread-self/schedstat)" : String.format("%.1f ms", ms(ns));
    }
}
