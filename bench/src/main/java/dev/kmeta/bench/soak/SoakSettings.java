package dev.kmeta.bench.soak;

import java.util.Locale;

/**
 * What a soak run does: how long faults are injected, the seed of every random choice, how many threads keep
 * sending, and the limits its invariants are checked against. Made from command-line arguments ({@link #parse}) or
 * in code ({@link #ofSeconds}).
 *
 * <p>Immutable and thread-safe.
 */
public final class SoakSettings {
    /** Default duration of the fault phase: 30 minutes. */
    public static final long DEFAULT_MINUTES = 30;
    /** The bound on a wait: it returns by its deadline + this. */
    public static final long DEFAULT_TOLERANCE_MS = 50;
    /** Default limit on heap growth (after GC, end minus start); the in-process brokers share the heap. */
    public static final long DEFAULT_HEAP_GROWTH_LIMIT_MB = 128;
    /** Default pace of the faults: their pauses (1-3 s) and holds (2-6 s) at 100 %. */
    public static final int DEFAULT_PACE_PERCENT = 100;

    private final long durationMs;
    private final long seed;
    private final int senders;
    private final long toleranceMs;
    private final long heapGrowthLimitMb;
    private final int pacePercent;

    private SoakSettings(long durationMs, long seed, int senders, long toleranceMs, long heapGrowthLimitMb,
                         int pacePercent) {
        if (durationMs < 1_000) {
            throw new IllegalArgumentException("the fault phase must last at least 1 s: " + durationMs + " ms");
        }
        if (senders < 1) {
            throw new IllegalArgumentException("--senders must be >= 1: " + senders);
        }
        if (toleranceMs < 0 || heapGrowthLimitMb < 0) {
            throw new IllegalArgumentException("--tolerance-ms and --heap-growth-mb must be >= 0");
        }
        if (pacePercent < 1 || pacePercent > 100) {
            throw new IllegalArgumentException("--pace-percent must be in 1..100: " + pacePercent);
        }
        this.durationMs = durationMs;
        this.seed = seed;
        this.senders = senders;
        this.toleranceMs = toleranceMs;
        this.heapGrowthLimitMb = heapGrowthLimitMb;
        this.pacePercent = pacePercent;
    }

    /** A run of {@code seconds} of faults with this seed, 4 sending threads and the default limits. */
    public static SoakSettings ofSeconds(long seconds, long seed) {
        return new SoakSettings(seconds * 1_000, seed, 4, DEFAULT_TOLERANCE_MS, DEFAULT_HEAP_GROWTH_LIMIT_MB,
                DEFAULT_PACE_PERCENT);
    }

    /** The same settings with another tolerance past a deadline. */
    public SoakSettings withToleranceMs(long millis) {
        return new SoakSettings(durationMs, seed, senders, millis, heapGrowthLimitMb, pacePercent);
    }

    /**
     * The same settings with the pauses between faults and the faults' holds at {@code percent} of their defaults:
     * the same faults of the seed, in that share of the time (what is done and checked stays the same).
     */
    public SoakSettings withPacePercent(int percent) {
        return new SoakSettings(durationMs, seed, senders, toleranceMs, heapGrowthLimitMb, percent);
    }

    /**
     * Parses {@code --minutes N} (default {@value #DEFAULT_MINUTES}), {@code --seconds N} (instead of minutes),
     * {@code --seed S} (default: from the clock, printed), {@code --senders N} (default 4), {@code --tolerance-ms N}
     * (default {@value #DEFAULT_TOLERANCE_MS}), {@code --heap-growth-mb N} (default
     * {@value #DEFAULT_HEAP_GROWTH_LIMIT_MB}), {@code --pace-percent N} (default {@value #DEFAULT_PACE_PERCENT}:
     * {@link #withPacePercent}).
     *
     * @throws IllegalArgumentException naming the argument that is unknown, lacks a value or is not a number
     */
    public static SoakSettings parse(String... args) {
        long durationMs = DEFAULT_MINUTES * 60_000;
        long seed = System.nanoTime();
        int senders = 4;
        long toleranceMs = DEFAULT_TOLERANCE_MS;
        long heapMb = DEFAULT_HEAP_GROWTH_LIMIT_MB;
        int pacePercent = DEFAULT_PACE_PERCENT;
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            long value = number(name, args[i + 1]);
            switch (name.toLowerCase(Locale.ROOT)) {
                case "--minutes" -> durationMs = value * 60_000;
                case "--seconds" -> durationMs = value * 1_000;
                case "--seed" -> seed = value;
                case "--senders" -> senders = (int) value;
                case "--tolerance-ms" -> toleranceMs = value;
                case "--heap-growth-mb" -> heapMb = value;
                case "--pace-percent" -> pacePercent = (int) Math.max(0, Math.min(value, 101)); // out of range: refused below
                default -> throw new IllegalArgumentException("unknown argument " + name + "; known: --minutes, "
                        + "--seconds, --seed, --senders, --tolerance-ms, --heap-growth-mb, --pace-percent");
            }
        }
        return new SoakSettings(durationMs, seed, senders, toleranceMs, heapMb, pacePercent);
    }

    private static long number(String name, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number: " + value, e);
        }
    }

    /** How long faults are injected. */
    public long durationMs() {
        return durationMs;
    }

    /** The seed of every random choice (faults, topics, partitions, budgets). */
    public long seed() {
        return seed;
    }

    /** Threads calling {@code awaitTopic} with short budgets the whole time. */
    public int senders() {
        return senders;
    }

    /** A wait returning later than its deadline + this breaks an invariant. */
    public long toleranceMs() {
        return toleranceMs;
    }

    /** The pauses between faults and the faults' holds, in percent of their defaults (1-3 s, 2-6 s). */
    public int pacePercent() {
        return pacePercent;
    }

    /** {@code millis} at this pace. */
    long paced(long millis) {
        return millis * pacePercent / 100;
    }

    /** Heap growth after GC (end minus start) above this breaks an invariant. */
    public long heapGrowthLimitMb() {
        return heapGrowthLimitMb;
    }

    @Override
    public String toString() {
        return "SoakSettings(" + durationMs / 1_000 + " s, seed " + seed + ", " + senders + " senders, tolerance "
                + toleranceMs + " ms, heap growth limit " + heapGrowthLimitMb + " MB"
                + (pacePercent == DEFAULT_PACE_PERCENT ? "" : ", fault pace " + pacePercent + " %") + ")";
    }
}
