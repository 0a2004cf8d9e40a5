package dev.kmeta.metadata.internal;

import dev.kmeta.lateness.LatenessBound;
import dev.kmeta.lateness.LatenessBound.Wait;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The deadline check of {@link ManagerStressTest} (and the stall measure of {@code StormTest}) on a busy machine:
 * control threads and the per-wait stamps that feed {@link LatenessBound}'s rule
 * {@link LatenessBound.Rule#STALL_PLUS_GC_PLUS_RUN_QUEUE}: a wait may return at most {@link LatenessBound#SLACK_MS}
 * past its deadline beyond what the machine, not the manager, did meanwhile, which is the sum of:
 * <ul>
 *   <li>the longest a plain control thread of the same test woke up late: control threads park until deadlines of the
 *       same lengths as the waits, and one parks 1 ms at a time (as jHiccup does: whatever pause or starvation starts,
 *       its deadline is at most 1 ms away, so it sees nearly the whole of it), without the manager, for as long as the
 *       test runs ({@link #start});</li>
 *   <li>the JVM's garbage-collection time during the wait (stop-the-world pauses, during which a thread is blocked,
 *       not runnable), from the {@code GarbageCollectorMXBean}s: one wait may sit through several pauses;</li>
 *   <li>the waiting thread's own time runnable without a CPU during the wait, from Linux's
 *       {@code /proc/thread-self/schedstat} (0 where that does not exist).</li>
 * </ul>
 * A waiter that the manager keeps parked or blocked past its deadline accumulates no run-queue time, so it fails once
 * it is late by more than the slack, the worst stall and the GC time; a waiter woken on time that then waits for one
 * of two busy CPUs is excused by its own run-queue time.
 *
 * <p>The sender's fault matrix takes the larger of the stall and the run-queue time (the same helper's other rule).
 * Here 32 threads never stop asking, and pauses and then a long queue for a CPU pile up in
 * one wait; with the larger of the three, 20 s runs at load 10-30 failed with no defect: 269 ms late with a stall of
 * 186 ms, 85 ms of run-queue and 49 ms of GC time; 222 ms late with a stall of 163 ms, 81 ms of GC and 3 ms of
 * run-queue time. What it cannot do: on a machine so busy that plain threads stall for 250 ms, a wait
 * 300 ms late is within the bound.
 *
 * <p>Thread-safe.
 */
final class LateWaits implements AutoCloseable {
    /** The rule of this check. */
    static final LatenessBound.Rule RULE = LatenessBound.Rule.STALL_PLUS_GC_PLUS_RUN_QUEUE;

    /** The waiting thread's counters read just before a wait ({@link #stamp()}). */
    record Stamp(long runQueueNs, long ranNs, long gcMs) {
    }

    private final Queue<Wait> late = new ConcurrentLinkedQueue<>();
    private final AtomicLong stallNs = new AtomicLong();
    private final AtomicLong maxHeldUpNs = new AtomicLong(-1);
    private final List<Thread> controls = new ArrayList<>();
    private volatile boolean running = true;

    private final long fromNs;

    private LateWaits(long fromNs) {
        this.fromNs = fromNs;
    }

    /**
     * Starts a control thread parking 1 ms at a time and {@code controlThreads} more, each parking until deadlines
     * drawn from {@code [minBudgetMs, maxBudgetMs]}; again and again, each recording how late it woke up from a
     * deadline at or after {@code fromNs} ({@link System#nanoTime()}), until {@link #close}.
     */
    static LateWaits start(long fromNs, int controlThreads, long minBudgetMs, long maxBudgetMs) {
        LateWaits w = new LateWaits(fromNs);
        w.controls.add(new Thread(() -> w.control(1, 1), "stress-control-1ms"));
        for (int i = 0; i < controlThreads; i++) {
            w.controls.add(new Thread(() -> w.control(minBudgetMs, maxBudgetMs), "stress-control-" + i));
        }
        w.controls.forEach(t -> t.setDaemon(true));
        w.controls.forEach(Thread::start);
        return w;
    }

    private void control(long minBudgetMs, long maxBudgetMs) {
        while (running) {
            long budgetNs = TimeUnit.MILLISECONDS.toNanos(
                    ThreadLocalRandom.current().nextLong(minBudgetMs, maxBudgetMs + 1));
            long deadlineNs = System.nanoTime() + budgetNs;
            for (long left = budgetNs; left > 0 && running; left = deadlineNs - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
            if (running && deadlineNs - fromNs >= 0) {
                stallNs.accumulateAndGet(System.nanoTime() - deadlineNs, Math::max);
            }
        }
    }

    /** The calling thread's run-queue and CPU time, and the JVM's GC time, now: read it just before a wait. */
    static Stamp stamp() {
        return new Stamp(runQueueNs(), LatenessBound.ranNs(), gcMs());
    }

    /** Nanoseconds the calling thread has waited on a run queue since it started, or -1 if unknown. */
    static long runQueueNs() {
        return LatenessBound.runQueueNs();
    }

    private static long gcMs() {
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
        }
        return ms;
    }

    /**
     * Records a wait that returned {@code overshootNs} after its deadline (nothing if it was in time), on the waiting
     * thread, right after it returned; {@code before} was taken just before the call.
     */
    void record(String what, long overshootNs, Stamp before) {
        if (overshootNs <= 0) {
            return;
        }
        Stamp after = stamp();
        Wait w = new Wait(what, overshootNs, LatenessBound.since(before.runQueueNs(), after.runQueueNs()),
                TimeUnit.MILLISECONDS.toNanos(after.gcMs() - before.gcMs()),
                LatenessBound.since(before.ranNs(), after.ranNs()));
        late.add(w);
        maxHeldUpNs.accumulateAndGet(Math.max(0, w.runQueueNs()) + w.gcNs(), Math::max);
    }

    /** The longest a control thread woke up past its deadline so far. */
    long stallNs() {
        return stallNs.get();
    }

    /** The longest a late wait was held up by run-queue and GC time so far, or -1 if none was late. */
    long maxHeldUpNs() {
        return maxHeldUpNs.get();
    }

    /** Null if every recorded wait kept its bound; else a message on the worst ({@code total}: waits made). */
    String violation(long total) {
        return violation(late, stallNs(), total);
    }

    /** Null if every wait in {@code lateWaits} kept {@link #RULE}'s bound; else a message on the worst. */
    static String violation(Collection<Wait> lateWaits, long stallNs, long total) {
        return RULE.violation(lateWaits, stallNs, total);
    }

    /** Stops the control threads. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        controls.forEach(LockSupport::unpark);
        for (Thread t : controls) {
            t.join(5_000);
        }
    }
}
