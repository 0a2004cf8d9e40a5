package dev.kmeta.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a soak run measured, and which invariants broke: every wait returned by its deadline + tolerance (beyond which
 * only a concurrent stall of the whole JVM, measured by a sleeping thread, or the waiting thread's own time runnable
 * without a CPU, from Linux's schedstat, may excuse it), no wait
 * ended with an unexpected error, no waiter was left parked, no {@code kmeta-*} thread outlived its client, heap
 * growth stayed under the limit, the metadata request rate stayed under the backoff bound, every closed instance
 * released its waiters, and the metadata converged to the Admin's view once the faults ended.
 *
 * <p>Filled once by {@link SoakHarness#run}, read-only once returned; safe to read from any thread after that.
 */
public final class SoakReport {
    final SoakSettings settings;
    long faultPhaseMs;
    Map<String, Integer> faults = Map.of();
    int faultErrors;
    String firstFaultError = "";
    long waits;
    long answered;
    Map<String, Long> timeouts = Map.of();
    long unexpectedErrors;
    String firstUnexpected = "";
    long pastDeadline;
    double worstOvershootMs;
    long unexplainedPastDeadline;
    long queuedExplained;
    String worstUnexplained = "";
    double worstStallMs;
    int stalls;
    String lateStacks = "";
    long waitersLeft;
    List<String> leakedThreads = List.of();
    long heapStartMb;
    long heapEndMb;
    long mainRequests;
    long allMetadataRequests;
    double requestsPerMinuteBound;
    long instancesOpened;
    long instancesClosed;
    long maxCloseMs;
    long maxReleaseMs;
    long churnProblems;
    String firstChurnProblems = "";
    boolean converged;
    long convergeMs;
    String convergence = "";

    SoakReport(SoakSettings settings) {
        this.settings = settings;
    }

    /** The invariants that broke, each one line; empty when the run passed. */
    public List<String> brokenInvariants() {
        List<String> broken = new ArrayList<>();
        if (unexplainedPastDeadline > 0) {
            broken.add(unexplainedPastDeadline + " wait(s) returned later than deadline + " + settings.toleranceMs()
                    + " ms with no JVM stall or wait for a CPU to explain it (worst: " + worstUnexplained + ")");
        }
        if (unexpectedErrors > 0) {
            broken.add(unexpectedErrors + " wait(s) ended with an unexpected error: " + firstUnexpected);
        }
        if (waitersLeft != 0) {
            broken.add(waitersLeft + " waiter(s) left parked once the senders stopped");
        }
        if (!leakedThreads.isEmpty()) {
            broken.add("kmeta threads left after close: " + leakedThreads);
        }
        if (heapEndMb - heapStartMb > settings.heapGrowthLimitMb()) {
            broken.add("heap after GC grew " + (heapEndMb - heapStartMb) + " MB (limit "
                    + settings.heapGrowthLimitMb() + " MB)");
        }
        if (mainRequestsPerMinute() > requestsPerMinuteBound) {
            broken.add(String.format("%.0f metadata requests/min, above the backoff bound %.0f",
                    mainRequestsPerMinute(), requestsPerMinuteBound));
        }
        if (churnProblems > 0) {
            broken.add(churnProblems + " problem(s) opening/closing instances: " + firstChurnProblems);
        }
        if (!converged) {
            broken.add("metadata did not converge to the Admin's view after the faults: " + convergence);
        }
        if (faultErrors > 0) {
            broken.add(faultErrors + " fault(s) could not be injected or undone: " + firstFaultError);
        }
        return broken;
    }

    /** True when no invariant broke. */
    public boolean passed() {
        return brokenInvariants().isEmpty();
    }

    /** Metadata requests per minute of the long-lived instance during the fault phase. */
    public double mainRequestsPerMinute() {
        return mainRequests * 60_000.0 / Math.max(1, faultPhaseMs);
    }

    public long waits() {
        return waits;
    }

    public long answered() {
        return answered;
    }

    public long pastDeadline() {
        return pastDeadline;
    }

    /** Waits past deadline + tolerance that no concurrent JVM stall explains (an invariant: 0). */
    public long unexplainedPastDeadline() {
        return unexplainedPastDeadline;
    }

    public double worstOvershootMs() {
        return worstOvershootMs;
    }

    public long waitersLeft() {
        return waitersLeft;
    }

    public List<String> leakedThreads() {
        return leakedThreads;
    }

    public long heapStartMb() {
        return heapStartMb;
    }

    public long heapEndMb() {
        return heapEndMb;
    }

    /** Faults injected, by kind. */
    public Map<String, Integer> faults() {
        return faults;
    }

    /** Total faults injected. */
    public int faultCount() {
        return faults.values().stream().mapToInt(Integer::intValue).sum();
    }

    public long instancesClosed() {
        return instancesClosed;
    }

    public boolean converged() {
        return converged;
    }

    /** The report, several lines, ending with {@code RESULT: PASSED} or {@code RESULT: FAILED: ...}. */
    public String format() {
        StringBuilder sb = new StringBuilder();
        line(sb, "soak: %s", settings);
        line(sb, "fault phase: %d s; faults injected: %d %s (errors injecting: %d)", faultPhaseMs / 1_000,
                faultCount(), faults, faultErrors);
        line(sb, "waits: %d (answered %d, timed out %s, unexpected errors %d)", waits, answered, timeouts,
                unexpectedErrors);
        line(sb, "waits past deadline + %d ms: %d (worst overshoot %.1f ms); %d of them late by more than a JVM stall "
                + "or the thread's wait for a CPU explains %s; %d explained by the wait for a CPU rather than a stall",
                settings.toleranceMs(), pastDeadline, worstOvershootMs, unexplainedPastDeadline, worstUnexplained,
                queuedExplained);
        line(sb, "JVM stalls (a 5 ms sleep woken 10+ ms late): %d, worst %.1f ms", stalls, worstStallMs);
        line(sb, "waiters left parked: %d; leaked kmeta threads after close: %s", waitersLeft, leakedThreads);
        line(sb, "heap after GC: start %d MB, end %d MB (growth %d MB, limit %d MB)", heapStartMb, heapEndMb,
                heapEndMb - heapStartMb, settings.heapGrowthLimitMb());
        line(sb, "metadata requests/min: %.1f by the long-lived instance (bound %.0f); %.1f through the proxies "
                + "(all instances)", mainRequestsPerMinute(), requestsPerMinuteBound,
                allMetadataRequests * 60_000.0 / Math.max(1, faultPhaseMs));
        line(sb, "instances opened/closed: %d/%d; slowest close %d ms; parked waiter released at most %d ms after "
                + "close began; problems %d", instancesOpened, instancesClosed, maxCloseMs, maxReleaseMs,
                churnProblems);
        line(sb, "converged to the Admin's view: %s in %d ms %s", converged, convergeMs, convergence);
        if (!lateStacks.isEmpty()) {
            line(sb, "waits found running 200+ ms late, where they were:%n%s", lateStacks);
        }
        List<String> broken = brokenInvariants();
        sb.append(broken.isEmpty() ? "RESULT: PASSED" : "RESULT: FAILED: " + String.join(" | ", broken));
        return sb.toString();
    }

    private static void line(StringBuilder sb, String format, Object... args) {
        sb.append(String.format(format, args)).append('\n');
    }

    @Override
    public String toString() {
        return format();
    }
}
