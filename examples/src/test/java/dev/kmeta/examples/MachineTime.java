package dev.kmeta.examples;

import dev.kmeta.testkit.RunQueue;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * What the machine, not the producer, added to a measured span, so that a wall-clock bound can be load-relative (as
 * metadata's {@code LatenessBound} and the soak harness do): the run-queue time (runnable, waiting for a CPU; Linux's
 * {@code schedstat}) of the calling thread and of the threads this factory made (the producer's network thread, which
 * decides when a record fails and completes its future), plus the JVM's GC time. A producer that keeps a record, a
 * send or a close waiting past its bound sleeps meanwhile and accumulates none of it, so it still fails the bound;
 * a thread woken on time that then waits for one of two busy CPUs is excused. Where {@code schedstat} does not exist
 * the run-queue terms are 0 (the bound is then its fixed tolerance alone).
 *
 * <p>Thread-safe: threads register themselves as they start; a {@link Span} is read by the thread that began it.
 */
final class MachineTime implements ThreadFactory {
    private final List<Made> made = new CopyOnWriteArrayList<>();

    @Override
    public Thread newThread(Runnable r) {
        Made m = new Made();
        made.add(m);
        return new Thread(() -> {
            m.schedstat.complete(RunQueue.fileOfCallingThread());
            try {
                r.run();
            } finally {
                m.finalRunQueueNs = RunQueue.waitedNs(); // its schedstat goes with it
            }
        });
    }

    /** A thread this factory made: where its counters are, and their last value once it ended. */
    private static final class Made {
        final CompletableFuture<Path> schedstat = new CompletableFuture<>();
        volatile long finalRunQueueNs = -1;

        long runQueueNs() {
            Path p = schedstat.orTimeout(30, TimeUnit.SECONDS).join();
            long now = p == null ? -1 : RunQueue.waitedNs(p);
            return now >= 0 ? now : Math.max(0, finalRunQueueNs);
        }
    }

    /** Begins a span on the calling thread; its threads' start is awaited (a producer's thread starts in create). */
    Span begin() {
        return new Span();
    }

    /** A span from {@link #begin()}: the counters then, for {@link #excusedMs()} later. */
    final class Span {
        private final long ownRunQueueNs = RunQueue.waitedNs();
        private final long threadsRunQueueNs = threadsRunQueueNs();
        private final long gcMs = gcMs();

        /** The calling thread's and the made threads' run-queue time plus the GC time since the span began, in ms. */
        long excusedMs() {
            return TimeUnit.NANOSECONDS.toMillis(delta(ownRunQueueNs, RunQueue.waitedNs())
                    + delta(threadsRunQueueNs, threadsRunQueueNs())) + (gcMs() - gcMs);
        }

        /** {@link #excusedMs()} with its terms, for a failure message. */
        String explain() {
            return "excused " + excusedMs() + " ms the machine took (run queue: this thread "
                    + TimeUnit.NANOSECONDS.toMillis(delta(ownRunQueueNs, RunQueue.waitedNs())) + " ms, the producer's "
                    + "threads " + TimeUnit.NANOSECONDS.toMillis(delta(threadsRunQueueNs, threadsRunQueueNs()))
                    + " ms; GC " + (gcMs() - gcMs) + " ms)";
        }
    }

    /** Asserts {@code tookMs <= boundMs + toleranceMs + } what the machine took during {@code span}. */
    static void assertAtMost(long tookMs, long boundMs, long toleranceMs, Span span, String what) {
        long excusedMs = span.excusedMs();
        if (tookMs > boundMs + toleranceMs + excusedMs) {
            throw new AssertionError(what + " took " + tookMs + " ms for a bound of " + boundMs + " ms + "
                    + toleranceMs + " ms tolerance + " + span.explain());
        }
    }

    private long threadsRunQueueNs() {
        long sum = 0;
        for (Made m : made) {
            sum += m.runQueueNs();
        }
        return sum;
    }

    private static long delta(long beforeNs, long afterNs) {
        return beforeNs < 0 || afterNs < 0 ? 0 : Math.max(0, afterNs - beforeNs);
    }

    private static long gcMs() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }
}
