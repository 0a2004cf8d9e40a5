package dev.kmeta.examples;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The histogram's percentiles against exact ones, on seeded random data. */
class LatencyHistogramTest {
    @Test
    void anEmptyHistogramReadsZero() {
        assertEquals(0, new LatencyHistogram().percentile(0.99));
    }

    @Test
    void smallValuesAreExact() {
        LatencyHistogram h = new LatencyHistogram();
        for (int v = 0; v < 8; v++) {
            h.record(v);
        }
        assertEquals(3, h.percentile(0.5));
        assertEquals(7, h.percentile(1.0));
    }

    @Test
    void everyBucketHoldsTheValuesItIndexes() {
        Random random = new Random(42);
        for (int i = 0; i < 100_000; i++) {
            long v = random.nextLong() >>> (1 + random.nextInt(63)); // 0 .. Long.MAX_VALUE, spread over magnitudes
            int index = LatencyHistogram.index(v);
            assertTrue(LatencyHistogram.upperBound(index) >= v && (index == 0
                    || LatencyHistogram.upperBound(index - 1) < v), "value " + v + " (seed 42)");
        }
    }

    @Test
    void percentilesAreWithinAnEighthOfTheExactValue() {
        for (long seed = 1; seed <= 20; seed++) {
            Random random = new Random(seed);
            LatencyHistogram h = new LatencyHistogram();
            long[] values = new long[1 + random.nextInt(5_000)];
            for (int i = 0; i < values.length; i++) {
                values[i] = (long) Math.exp(random.nextDouble() * 16); // 1 us .. 9 s, log-spread
                h.record(values[i]);
            }
            Arrays.sort(values);
            for (double q : new double[] {0.5, 0.99}) {
                long exact = values[(int) Math.ceil(q * values.length) - 1];
                long estimate = h.percentile(q);
                assertTrue(estimate >= exact && estimate <= exact + exact / 8 + 1,
                        "seed " + seed + " q " + q + ": exact " + exact + ", estimate " + estimate);
            }
        }
    }
}
