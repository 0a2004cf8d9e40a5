package dev.kmeta.sender.matrix;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A hiccup meter (after jHiccup): what the platform - GC pauses, CPU starvation of a shared 2-core machine running
 * three brokers in the same JVM - does to any parked thread, kmeta's waiters included. A thread per CPU and one more
 * park for 1 ms again and again; two more wait as the load's threads do, without kmeta (park until a 100, 250 or
 * 500 ms deadline, then pause 20 ms), and the load's own threads report how late their pauses between waits woke up
 * (the same threads' scheduling, outside kmeta). The matrix's overshoot bound ({@link OvershootBound}) is stated on
 * top of the worst of them, or of the waiting thread's own run-queue time, whichever is larger.
 *
 * <p>Thread-safe.
 */
final class Hiccups implements AutoCloseable {
    private static final long TICK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final long[] CONTROL_BUDGETS_MS = {100, 250, 500};
    private static final long PACE_NS = TimeUnit.MILLISECONDS.toNanos(20);

    private final AtomicLong maxNs = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    private Hiccups(String name) {
        // one ticking thread per CPU and one more: a stall can hold one CPU only (a VM's host keeping one vCPU), and
        // a single ticker on the other CPU would not see what a waiter whose timer sits on the held one meets
        for (int i = 0; i <= Runtime.getRuntime().availableProcessors(); i++) {
            threads.add(new Thread(this::tick, "matrix-hiccups-" + name + "-" + i));
        }
        for (int i = 0; i < 2; i++) {
            int first = i;
            threads.add(new Thread(() -> control(first), "matrix-control-" + name + "-" + i));
        }
        threads.forEach(t -> t.setDaemon(true));
    }

    static Hiccups start(String name) {
        Hiccups h = new Hiccups(name);
        h.threads.forEach(Thread::start);
        return h;
    }

    private void tick() {
        while (running) {
            long before = System.nanoTime();
            LockSupport.parkNanos(TICK_NS);
            record(System.nanoTime() - before - TICK_NS);
        }
    }

    private void control(int first) {
        for (int i = first; running; i++) {
            long deadlineNs = System.nanoTime()
                    + TimeUnit.MILLISECONDS.toNanos(CONTROL_BUDGETS_MS[i % CONTROL_BUDGETS_MS.length]);
            // close() unparks it: it stops at once instead of parking on to a deadline up to 500 ms away.
            for (long left = deadlineNs - System.nanoTime(); left > 0 && running;
                 left = deadlineNs - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
            record(System.nanoTime() - deadlineNs);
            LockSupport.parkNanos(PACE_NS);
        }
    }

    /** Records how late a plain park (outside kmeta) woke up, on any thread: the load's pauses report here too. */
    void record(long lateNs) {
        maxNs.accumulateAndGet(lateNs, Math::max);
    }

    /** The longest any of its parks overslept so far, in ms. */
    long maxMs() {
        return TimeUnit.NANOSECONDS.toMillis(maxNs());
    }

    /** The longest any of its parks overslept so far, in ns. */
    long maxNs() {
        return maxNs.get();
    }

    @Override
    public void close() {
        running = false;
        threads.forEach(LockSupport::unpark);
        for (Thread t : threads) {
            try {
                t.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
