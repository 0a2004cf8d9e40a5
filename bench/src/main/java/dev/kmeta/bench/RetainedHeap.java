package dev.kmeta.bench;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.internal.MergePath;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.sender.internal.ResponseTranslator;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import javax.management.ObjectName;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;

/**
 * P5, side by side (a plain {@code main}, not JMH): the heap a 100k-partition metadata state keeps alive, per
 * partition, measured as the difference of two class histograms ({@code GC.class_histogram}, which runs a full GC
 * first) taken before the state is built and while it is held, once the response it was built from is unreachable.
 *
 * <p>What is held (the response comes from {@link Wire}, 1,000 topics x 100 partitions, 6 brokers, RF 3, fresh
 * strings as a decoder makes them):
 * <ul>
 *   <li>{@code kafka-clients}: the {@code ProducerMetadata} after {@code add} of every topic and one full update;</li>
 *   <li>{@code kmeta}: the {@code MetadataManager} after every topic was subscribed and one refresh answered (its
 *       subscriptions, counters and state machine included), built by {@link Wire#manager};</li>
 *   <li>{@code kmeta-snapshot}: the {@link Cluster} alone (translated and merged into {@code Cluster.empty()}).</li>
 * </ul>
 * Each is measured {@code --repeats} times in turn in one JVM, the histograms of the measurements are kept for the
 * largest contributors. The topic names of the harness exist before the baseline; the state holds its own copies.
 *
 * <pre>{@code
 * java -Xms2g -Xmx2g -XX:+AlwaysPreTouch -cp bench/target/benchmarks.jar dev.kmeta.bench.RetainedHeap \
 *     --names hashed --repeats 3 > bench/results/retained-heap.txt
 * }</pre>
 * Options: {@code --partitions N} (a multiple of 100, default 100000), {@code --names hashed|numbered},
 * {@code --repeats N} (default 3), {@code --top N} (classes listed per impl, default 8).
 *
 * <p>Not thread-safe; a program.
 */
public final class RetainedHeap {
    private static volatile Object held;

    private RetainedHeap() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Args.parse(args, Map.of("partitions", "100000", "names", "hashed",
                "repeats", "3", "top", "8"));
        int partitions = Args.intOpt(opts, "partitions");
        int topics = partitions / ApplyDelta.PARTITIONS_PER_TOPIC;
        String[] names = ApplyDelta.topicNames(opts.get("names"), topics);
        int repeats = Args.intOpt(opts, "repeats");
        int top = Args.intOpt(opts, "top");
        System.out.printf(Locale.ROOT, "RetainedHeap: %d partitions (%d topics), names %s, %s%n", partitions, topics,
                opts.get("names"), Args.jvm());
        Map<String, Supplier<Object>> impls = states(names);
        // One unmeasured round: class loading and JIT'd code must not count against the first impl.
        for (Supplier<Object> s : impls.values()) {
            held = s.get();
            held = null;
        }
        Map<String, List<Double>> perPartition = new java.util.LinkedHashMap<>();
        Map<String, Map<String, long[]>> lastDiff = new HashMap<>();
        for (int r = 0; r < repeats; r++) {
            for (Map.Entry<String, Supplier<Object>> impl : impls.entrySet()) {
                Map<String, long[]> before = histogram();
                held = impl.getValue().get();
                Map<String, long[]> after = histogram();
                check(held, topics);
                held = null;
                Map<String, long[]> diff = diff(before, after);
                long bytes = diff.values().stream().mapToLong(v -> v[1]).sum();
                double per = (double) bytes / partitions;
                perPartition.computeIfAbsent(impl.getKey(), k -> new ArrayList<>()).add(per);
                lastDiff.put(impl.getKey(), diff);
                System.out.printf(Locale.ROOT, "round %d %-15s retained %,12d B = %7.1f B/partition%n", r + 1,
                        impl.getKey(), bytes, per);
            }
        }
        System.out.println();
        System.out.println("| impl | B/partition (min / median / max over " + repeats + ") | MB for "
                + partitions + " partitions |");
        System.out.println("|---|---:|---:|");
        for (Map.Entry<String, List<Double>> e : perPartition.entrySet()) {
            List<Double> v = new ArrayList<>(e.getValue());
            v.sort(null);
            System.out.printf(Locale.ROOT, "| %s | %.1f / %.1f / %.1f | %.1f |%n", e.getKey(), v.get(0),
                    v.get(v.size() / 2), v.get(v.size() - 1), v.get(v.size() / 2) * partitions / 1e6);
        }
        double kafka = Stats.median(perPartition.get(Wire.IMPL_KAFKA), Double::doubleValue);
        double kmeta = Stats.median(perPartition.get(Wire.IMPL_KMETA), Double::doubleValue);
        System.out.printf(Locale.ROOT, "ratio kafka-clients / kmeta: %.2fx%n%n", kafka / kmeta);
        for (Map.Entry<String, Map<String, long[]>> e : lastDiff.entrySet()) {
            System.out.println("largest retained classes, " + e.getKey() + " (last round):");
            e.getValue().entrySet().stream()
                    .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
                    .limit(top)
                    .forEach(c -> System.out.printf(Locale.ROOT, "  %,12d B %,10d instances  %s%n", c.getValue()[1],
                            c.getValue()[0], c.getKey()));
        }
    }

    /** What is measured, by name: each supplier builds its state anew from a fresh response of all {@code names}. */
    static Map<String, Supplier<Object>> states(String[] names) {
        int topics = names.length;
        Map<String, Supplier<Object>> impls = new java.util.LinkedHashMap<>();
        impls.put(Wire.IMPL_KAFKA, () -> Wire.producerMetadata(names, Wire.data(names, 0, topics, 0)));
        impls.put(Wire.IMPL_KMETA, () -> Wire.manager(names, Wire.data(names, 0, topics, 0)));
        impls.put("kmeta-snapshot", () -> new MergePath().apply(Cluster.empty(),
                ResponseTranslator.translate(Wire.response(Wire.data(names, 0, topics, 0)), Cluster.empty())));
        return impls;
    }

    /** Fails loudly if a state does not hold every topic (a wrong measurement would otherwise look like a win). */
    private static void check(Object state, int topics) {
        int held;
        if (state instanceof ProducerMetadata) {
            held = ((ProducerMetadata) state).fetch().topics().size();
        } else if (state instanceof MetadataManager) {
            held = ((MetadataManager) state).fetch().topicNames().size();
        } else {
            held = ((Cluster) state).topicNames().size();
        }
        if (held != topics) {
            throw new IllegalStateException(state.getClass().getSimpleName() + " holds " + held + " topics, not "
                    + topics);
        }
    }

    /**
     * Class name to {instances, bytes}, after the full GC the diagnostic command runs first (a name listed more than
     * once - classes of one name in several loaders - is summed).
     */
    static Map<String, long[]> histogram() throws Exception {
        String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Map<String, long[]> classes = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":")) {
                classes.merge(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])},
                        (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
            }
        }
        return classes;
    }

    static Map<String, long[]> diff(Map<String, long[]> before, Map<String, long[]> after) {
        Map<String, long[]> d = new HashMap<>();
        for (Map.Entry<String, long[]> e : after.entrySet()) {
            long[] b = before.getOrDefault(e.getKey(), new long[2]);
            long[] a = e.getValue();
            if (a[0] != b[0] || a[1] != b[1]) {
                d.put(e.getKey(), new long[] {a[0] - b[0], a[1] - b[1]});
            }
        }
        for (Map.Entry<String, long[]> e : before.entrySet()) {
            if (!after.containsKey(e.getKey())) {
                d.put(e.getKey(), new long[] {-e.getValue()[0], -e.getValue()[1]});
            }
        }
        return d;
    }
}
