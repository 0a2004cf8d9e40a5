package dev.kmeta.sender.matrix;

import dev.kmeta.lateness.LatenessBound;
import dev.kmeta.lateness.LatenessBound.Wait;
import java.util.Collection;

/**
 * The matrix's lateness check (b), per wait: the tests' one lateness helper ({@link LatenessBound}, from metadata's
 * test jar) with the rule {@link LatenessBound.Rule#LARGER_OF_STALL_AND_RUN_QUEUE}: a wait may return at most
 * {@link LatenessBound#SLACK_MS} past its deadline beyond the larger of two things the machine, not kmeta, did
 * meanwhile: the longest stall of a plain parked thread in the same scenario ({@link Hiccups}), and the time the
 * waiting thread itself spent runnable without a CPU during this wait ({@code RunQueue}). Where the run-queue time is
 * unknown (no {@code /proc/thread-self/schedstat}) the stall alone counts. This class only names the scenario and the
 * client in the message. Stateless and thread-safe.
 */
final class OvershootBound {
    /** The matrix's rule. */
    static final LatenessBound.Rule RULE = LatenessBound.Rule.LARGER_OF_STALL_AND_RUN_QUEUE;

    private OvershootBound() {
    }

    /**
     * Null if every wait kept its bound; else a message on the wait that exceeded it most (its overshoot, bound,
     * stall, run-queue and CPU time) and how many did, naming {@code scenario} and {@code who}.
     */
    static String violation(String scenario, String who, long stallNs, Collection<Wait> waits) {
        String tooLate = RULE.violation(waits, stallNs, waits.size());
        return tooLate == null ? null : scenario + ": " + who + ": " + tooLate;
    }
}
