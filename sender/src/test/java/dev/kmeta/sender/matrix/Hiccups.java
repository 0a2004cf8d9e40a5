package dev.kmeta.sender.matrix;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A hiccup meter (after jHiccup): one thread parks for 1 ms again and again and records how much later than asked it
 * woke up. What it measures is what the platform (GC pauses, CPU starvation of a shared 2-core machine running three
 * brokers in the same JVM) does to any parked thread, kmeta's waiters included; the matrix's overshoot bound is
 * stated on top of it.
 *
 * <p>Thread-safe.
 */
final class Hiccups implements AutoCloseable {
    private static final long TICK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AtomicLong maxNs = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    private Hiccups(String name) {
        thread = new Thread(this::run, "matrix-hiccups-" + name);
        thread.setDaemon(true);
    }

    static Hiccups start(String name) {
        Hiccups h = new Hiccups(name);
        h.thread.start();
        return h;
    }

    private void run() {
        while (running) {
            long before = System.nanoTime();
            LockSupport.parkNanos(TICK_NS);
            long late = System.nanoTime() - before - TICK_NS;
            maxNs.accumulateAndGet(late, Math::max);
        }
    }

    /** The longest a 1 ms park overslept so far, in ms. */
    long maxMs() {
        return TimeUnit.NANOSECONDS.toMillis(maxNs.get());
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
