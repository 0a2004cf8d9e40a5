package dev.kmeta.bench;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Median, min and max of one measure over the runs of a benchmark program, for its result table. NaN values (a
 * measure a run could not take) are left out; an empty set gives NaN. Stateless.
 */
final class Stats {
    private Stats() {
    }

    /** The upper median of {@code f} over {@code runs}. */
    static <T> double median(List<T> runs, ToDoubleFunction<T> f) {
        double[] v = values(runs, f).sorted().toArray();
        return v.length == 0 ? Double.NaN : v[v.length / 2];
    }

    static <T> double min(List<T> runs, ToDoubleFunction<T> f) {
        return values(runs, f).min().orElse(Double.NaN);
    }

    static <T> double max(List<T> runs, ToDoubleFunction<T> f) {
        return values(runs, f).max().orElse(Double.NaN);
    }

    private static <T> java.util.stream.DoubleStream values(List<T> runs, ToDoubleFunction<T> f) {
        return runs.stream().mapToDouble(f).filter(d -> !Double.isNaN(d));
    }
}
