package dev.kmeta.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * CPU time and allocated bytes of threads, through {@code com.sun.management.ThreadMXBean}: of the calling thread
 * ({@link #cpuNs()}, {@link #allocatedBytes()}), of other threads found by name ({@link #threads}), and a wait until
 * a set of threads has gone idle ({@link #awaitIdle}). Stateless; every method may be called from any thread.
 */
final class ThreadMeter {
    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static {
        MX.setThreadCpuTimeEnabled(true);
        MX.setThreadAllocatedMemoryEnabled(true);
    }

    private ThreadMeter() {
    }

    /** CPU time of the calling thread. */
    static long cpuNs() {
        return MX.getCurrentThreadCpuTime();
    }

    /** Bytes the calling thread has allocated so far. */
    static long allocatedBytes() {
        return MX.getCurrentThreadAllocatedBytes();
    }

    /** The ids of the live threads whose name matches. */
    static long[] threads(Predicate<String> name) {
        long[] all = MX.getAllThreadIds();
        ThreadInfo[] infos = MX.getThreadInfo(all, 0);
        List<Long> ids = new ArrayList<>();
        for (ThreadInfo i : infos) {
            if (i != null && name.test(i.getThreadName())) {
                ids.add(i.getThreadId());
            }
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /** The names of these threads (a dead one: "?"). */
    static List<String> names(long[] ids) {
        List<String> names = new ArrayList<>();
        for (ThreadInfo i : MX.getThreadInfo(ids, 0)) {
            names.add(i == null ? "?" : i.getThreadName());
        }
        return names;
    }

    /** Total CPU time of these threads (dead ones count 0). */
    static long cpuNs(long[] ids) {
        long sum = 0;
        for (long v : MX.getThreadCpuTime(ids)) {
            sum += Math.max(0, v);
        }
        return sum;
    }

    /** Total bytes these threads have allocated (dead ones count 0). */
    static long allocatedBytes(long[] ids) {
        long sum = 0;
        for (long v : MX.getThreadAllocatedBytes(ids)) {
            sum += Math.max(0, v);
        }
        return sum;
    }

    /**
     * Waits until the threads whose name matches {@code name} used less than {@code quietNs} of CPU together in each
     * of {@code quietPolls} consecutive polls {@code pollMs} apart, at most {@code maxMs}. The set is looked up
     * again at every poll (connections come and go). Returns whether they went idle.
     */
    static boolean awaitIdle(Predicate<String> name, long quietNs, int quietPolls, long pollMs, long maxMs) {
        long endNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMs);
        long last = cpuNs(threads(name));
        int quiet = 0;
        while (System.nanoTime() < endNs) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pollMs)); // a poll interval, not a synchronization
            long now = cpuNs(threads(name));
            quiet = now - last < quietNs ? quiet + 1 : 0;
            last = now;
            if (quiet >= quietPolls) {
                return true;
            }
        }
        return false;
    }
}
