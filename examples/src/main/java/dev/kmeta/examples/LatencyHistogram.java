package dev.kmeta.examples;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A lock-free histogram of durations in microseconds, precise to 1/8 of a power of two (about 12%): 8 linear
 * buckets per power of two, as HdrHistogram does with 3 significant bits. Enough for p50/p99 of metadata waits.
 *
 * <p>Thread-safe: {@link #record} is one atomic increment; {@link #percentile} reads a moving picture.
 */
final class LatencyHistogram {
    private static final int SUB_BUCKET_BITS = 3;
    private static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
    private final AtomicLongArray counts = new AtomicLongArray((64 - SUB_BUCKET_BITS + 1) * SUB_BUCKETS);

    void record(long micros) {
        counts.incrementAndGet(index(Math.max(0, micros)));
    }

    /** The smallest recorded value v such that {@code fraction} of the values are <= v (bucket upper bound). */
    long percentile(double fraction) {
        long total = 0;
        for (int i = 0; i < counts.length(); i++) {
            total += counts.get(i);
        }
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(fraction * total);
        long seen = 0;
        for (int i = 0; i < counts.length(); i++) {
            seen += counts.get(i);
            if (seen >= rank && counts.get(i) > 0) {
                return upperBound(i);
            }
        }
        return upperBound(counts.length() - 1);
    }

    static int index(long value) {
        if (value < SUB_BUCKETS) {
            return (int) value;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(value);
        int sub = (int) (value >>> (exponent - SUB_BUCKET_BITS)) & (SUB_BUCKETS - 1);
        return (exponent - SUB_BUCKET_BITS + 1) * SUB_BUCKETS + sub;
    }

    static long upperBound(int index) {
        if (index < SUB_BUCKETS) {
            return index;
        }
        int exponent = index / SUB_BUCKETS + SUB_BUCKET_BITS - 1;
        long sub = index % SUB_BUCKETS;
        long lower = (SUB_BUCKETS + sub) << (exponent - SUB_BUCKET_BITS);
        return lower + (1L << (exponent - SUB_BUCKET_BITS)) - 1;
    }
}
