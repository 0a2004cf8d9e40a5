package dev.kmeta.bench.soak;

import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;

/**
 * Measures how late this JVM runs a thread that sleeps {@value #TICK_MS} ms in a loop: a garbage-collection pause or
 * a starved CPU (the soak shares a small machine with in-process brokers) delays every thread alike. A wait that
 * returns past its deadline while such a stall was under way is late because of the machine, not because kmeta did
 * not wake it: {@link #worstStallNs} says how much lateness the machine explains. Thread-safe.
 */
final class StallMeter implements Runnable {
    private static final long TICK_MS = 5;
    /** Stalls shorter than this are not kept. */
    private static final long KEPT_NS = TimeUnit.MILLISECONDS.toNanos(10);

    /** Waits under way: thread -> its deadline (ns); checked each tick for a wait running late. */
    private final Map<Thread, Long> running = new java.util.concurrent.ConcurrentHashMap<>();
    /** Where late waits were found, one stack trace each (the first few). */
    private final java.util.Queue<String> lateStacks = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private static final long LATE_NS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final int KEPT_STACKS = 5;

    /** Stalls by the time they ended: end ns -> length ns. */
    private final ConcurrentSkipListMap<Long, Long> stalls = new ConcurrentSkipListMap<>();
    private volatile boolean stop;
    private volatile long worstNs;

    @Override
    public void run() {
        long tickNs = TimeUnit.MILLISECONDS.toNanos(TICK_MS);
        while (!stop) {
            long begin = System.nanoTime();
            try {
                TimeUnit.MILLISECONDS.sleep(TICK_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long end = System.nanoTime();
            long lateNs = end - begin - tickNs;
            if (lateNs < KEPT_NS) {
                checkRunningLate(end);
            }
            if (lateNs >= KEPT_NS) {
                stalls.put(end, lateNs);
                worstNs = Math.max(worstNs, lateNs);
            }
        }
    }

    /** The calling thread begins a wait ending at {@code deadlineNs}. */
    void waiting(long deadlineNs) {
        running.put(Thread.currentThread(), deadlineNs);
    }

    /** The calling thread's wait returned. */
    void done() {
        running.remove(Thread.currentThread());
    }

    /**
     * A wait still running {@value #LATE_NS} ns past its deadline while this thread itself runs on time is late
     * for a reason of its own: keep where it is (its stack), the first few times.
     */
    private void checkRunningLate(long nowNs) {
        if (lateStacks.size() >= KEPT_STACKS) {
            return;
        }
        running.forEach((thread, deadlineNs) -> {
            if (nowNs - deadlineNs > LATE_NS && running.remove(thread, deadlineNs)) {
                StringBuilder sb = new StringBuilder(thread.getName()).append(' ')
                        .append((nowNs - deadlineNs) / 1_000_000).append(" ms past its deadline:");
                for (StackTraceElement e : thread.getStackTrace()) {
                    sb.append("\n    at ").append(e);
                }
                lateStacks.add(sb.toString());
            }
        });
    }

    /** Stack traces of waits found running late (see {@link #checkRunningLate}). */
    String lateStacks() {
        return String.join("\n", lateStacks);
    }

    void stop() {
        stop = true;
    }

    /** The longest stall that overlapped {@code [beginNs, endNs]}, in ns (0 if none). */
    long worstStallNs(long beginNs, long endNs) {
        long worst = 0;
        // A stall is seen when it ends, so look a little past the wait's end for one that began before it.
        for (Map.Entry<Long, Long> e : stalls.subMap(beginNs, true, endNs + TimeUnit.SECONDS.toNanos(2), true)
                .entrySet()) {
            long stallBegin = e.getKey() - e.getValue() - TimeUnit.MILLISECONDS.toNanos(TICK_MS);
            if (stallBegin <= endNs) {
                worst = Math.max(worst, e.getValue());
            }
        }
        return worst;
    }

    /** The longest stall seen so far, in ms. */
    double worstMs() {
        return worstNs / 1e6;
    }

    /** How many stalls of 10 ms or more were seen. */
    int count() {
        return stalls.size();
    }
}
