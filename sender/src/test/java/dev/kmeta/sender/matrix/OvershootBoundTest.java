package dev.kmeta.sender.matrix;

import dev.kmeta.lateness.LatenessBound.Wait;
import dev.kmeta.testkit.RunQueue;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The matrix's per-wait lateness check: synthetic waits, and one real parked thread read through schedstat. */
class OvershootBoundTest {
    private static final long STALL_NS = ms(10);

    @Test
    void aWaitParkedPastItsDeadlineWithoutRunQueueTimeFailsWithTheNumbers() {
        Wait late = new Wait("t-0 (100 ms)", ms(120), 0, ms(1));

        String message = OvershootBound.violation("scenario-x", "survivor", STALL_NS, List.of(late));

        assertNotNull(message, "a wait 120 ms late with a 10 ms stall and no run-queue time is a defect");
        assertTrue(message.startsWith("scenario-x: survivor: 1 of 1 waits"), message);
        assertTrue(message.contains("t-0 (100 ms) returned 120.0 ms after its deadline, bound 60.0 ms"), message);
        assertTrue(message.contains("stall of a plain parked thread in the scenario 10.0 ms"), message);
        assertTrue(message.contains("own run-queue time 0.0 ms"), message);
    }

    @Test
    void aWaitLateByItsOwnRunQueueTimePasses() {
        Wait starved = new Wait("t-0 (100 ms)", ms(120), ms(100), ms(1));

        assertNull(OvershootBound.violation("s", "survivor", STALL_NS, List.of(starved)));
    }

    @Test
    void runQueueTimeExcusesOnlyItsOwnLengthPlusTheSlack() {
        Wait atBound = new Wait("a", ms(150), ms(100), 0);
        Wait pastBound = new Wait("b", ms(150) + 1, ms(100), 0);

        assertNull(OvershootBound.violation("s", "w", STALL_NS, List.of(atBound)));
        assertNotNull(OvershootBound.violation("s", "w", STALL_NS, List.of(pastBound)));
    }

    @Test
    void withoutSchedstatTheScenarioStallAloneCounts() {
        Wait unknown = new Wait("t (100 ms)", ms(120), -1, -1);

        String message = OvershootBound.violation("s", "w", STALL_NS, List.of(unknown));
        assertNotNull(message);
        assertTrue(message.contains("run-queue time unknown (no /proc/thread-self/schedstat)"), message);
        assertNull(OvershootBound.violation("s", "w", ms(70), List.of(unknown)), "120 ms <= 50 ms + a 70 ms stall");
    }

    @Test
    void theMessageNamesTheWorstOffenderAndCountsAll() {
        List<Wait> waits = List.of(
                new Wait("in-time", 0, 0, 0),
                new Wait("late-70", ms(70), 0, 0),
                new Wait("late-300-starved-280", ms(300), ms(280), 0),
                new Wait("late-200", ms(200), ms(5), 0));

        String message = OvershootBound.violation("s", "w", STALL_NS, waits);

        assertNotNull(message);
        assertTrue(message.contains("2 of 4 waits returned too late; worst: late-200 returned 200.0 ms"), message);
    }

    @Test
    void aRealThreadParkedPastItsDeadlineAccumulatesNoRunQueueTimeAndFails() {
        assumeTrue(RunQueue.waitedNs() >= 0, "needs Linux's /proc/thread-self/schedstat");
        long parkedPastNs = ms(400); // a simulated lost wake-up, far beyond the 50 ms slack

        long deadlineNs = System.nanoTime();
        long runQueueBeforeNs = RunQueue.waitedNs();
        long ranBeforeNs = RunQueue.ranNs();
        // Parks until 400 ms were spent off the run queue: a preemption between the stamps and the park (it happens
        // at load ~11) would otherwise use up the 400 ms as run-queue time and leave nothing parked to catch.
        for (long left = parkedPastNs; left > 0;
                left = parkedPastNs - (System.nanoTime() - deadlineNs) + (RunQueue.waitedNs() - runQueueBeforeNs)) {
            LockSupport.parkNanos(left);
        }
        long runQueueNs = RunQueue.waitedNs() - runQueueBeforeNs;
        long ranNs = RunQueue.ranNs() - ranBeforeNs;
        Wait wait = new Wait("parked", System.nanoTime() - deadlineNs, runQueueNs, ranNs);

        // Parked time is not run-queue time: only the few instructions around the park (and the wake-up's wait for
        // a CPU, which is also in the overshoot) count, so the wait stays 400 ms minus that past the 50 ms slack.
        assertNotNull(OvershootBound.violation("s", "w", 0, List.of(wait)), wait::toString);
    }

    private static long ms(long ms) {
        return TimeUnit.MILLISECONDS.toNanos(ms);
    }
}
