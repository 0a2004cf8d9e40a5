package dev.kmeta.bench;

import dev.kmeta.testkit.FakeBroker;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A diagnosis tool for P2k's send() gap: the CPU time a sending thread spends per {@code KafkaProducer.send()} on
 * each route - what the route adds on the sending thread (the interceptor, the stand-in's {@code fetch()} and
 * {@code add()}, kmeta's views) with the network, the broker and the scheduler taken out as far as a program can: one
 * thread sends as fast as it can to a testkit {@link FakeBroker}, and its own CPU time ({@code ThreadMXBean}) is
 * divided by the sends; wall time is printed beside it (it includes waiting for buffer memory). Both routes alternate
 * in one JVM, each round with a fresh producer, after a warm-up long enough for the JIT's last tier.
 *
 * <pre>{@code
 * java -Xms1g -Xmx1g -cp bench/target/benchmarks.jar dev.kmeta.bench.RouteSendCost --rounds 3
 * }</pre>
 * Options: {@code --rounds N} (3), {@code --topics N} (10), {@code --partitions N} (10), {@code --sends N} (1,000,000
 * measured), {@code --warm N} (500,000), {@code --value-bytes N} (100), {@code --idempotence true|false} (true),
 * {@code --cold-kib N} (0: off).
 *
 * <p>With {@code --cold-kib N} each round also times sends made as P2k's are - each one after the caches went cold:
 * before each of {@code --cold-sends} (20,000) sends the thread reads one word of every cache line of an N KiB array
 * (more than the last-level cache evicts what the send touches), then the send's wall time is taken alone; p50, p90
 * and p99 are printed. What a route's send touches beyond stock's then shows as cache misses, which a hot loop
 * hides.
 *
 * <p>With {@code --paired-kib N} a last phase opens one producer of each route side by side and alternates cold sends
 * between them ({@code --paired-sends} each, the first of a pair alternating too), N KiB read before each send: both
 * routes' sends then meet the same machine, JIT state and moment, which rounds apart do not (their cold p50 moves by
 * a few hundred ns from round to round). Prints each route's p50 / p90 / p99 and the median of the per-pair
 * differences.
 *
 * <p>Not thread-safe; a program.
 */
public final class RouteSendCost {
    private RouteSendCost() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("rounds", "3");
        defaults.put("topics", "10");
        defaults.put("partitions", "10");
        defaults.put("sends", "1000000");
        defaults.put("warm", "500000");
        defaults.put("value-bytes", "100");
        defaults.put("idempotence", "true");
        defaults.put("cold-kib", "0");
        defaults.put("cold-sends", "20000");
        defaults.put("paired-kib", "0");
        defaults.put("paired-sends", "100000");
        Map<String, String> opts = Args.parse(args, defaults);
        int topics = Args.intOpt(opts, "topics");
        List<String> names = new ArrayList<>();
        for (int t = 0; t < topics; t++) {
            names.add(String.format(Locale.ROOT, "rsc-%03d", t));
        }
        System.out.printf(Locale.ROOT, "RouteSendCost: %d topics x %d partitions on a FakeBroker, 1 thread, %d sends "
                        + "measured after %d, %d B values, idempotence %s; %s; load %s%n", topics,
                Args.intOpt(opts, "partitions"), Args.intOpt(opts, "sends"), Args.intOpt(opts, "warm"),
                Args.intOpt(opts, "value-bytes"), opts.get("idempotence"), Args.jvm(), Args.load());
        try (FakeBroker broker = FakeBroker.start(1)) {
            broker.createTopics(names, Args.intOpt(opts, "partitions"));
            for (int round = 1; round <= Args.intOpt(opts, "rounds"); round++) {
                for (String impl : RealBroker.impls("both", round)) {
                    measure(broker, impl, round, names, opts);
                }
            }
            if (Args.intOpt(opts, "paired-kib") > 0) {
                paired(broker, names, opts);
            }
        }
    }

    private static void measure(FakeBroker broker, String impl, int round, List<String> names,
                                Map<String, String> opts) throws Exception {
        byte[] value = new byte[Args.intOpt(opts, "value-bytes")];
        byte[][] keys = keys();
        try (Producer<byte[], byte[]> producer = producer(broker, impl, "rsc-" + impl + "-" + round, opts)) {
            warm(producer, names, keys, value, Args.intOpt(opts, "warm"));
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            int n = Args.intOpt(opts, "sends");
            long cpu0 = threads.getCurrentThreadCpuTime();
            long wall0 = System.nanoTime();
            send(producer, names, keys, value, n);
            long cpuNs = threads.getCurrentThreadCpuTime() - cpu0;
            long wallNs = System.nanoTime() - wall0;
            producer.flush();
            System.out.printf(Locale.ROOT, "round %d %-5s: send() %.0f ns CPU and %.0f ns wall per send (%d sends); "
                    + "load %s%n", round, impl, cpuNs / (double) n, wallNs / (double) n, n, Args.load());
            int coldKib = Args.intOpt(opts, "cold-kib");
            if (coldKib > 0) {
                long[] ns = coldSends(producer, names, keys, value, Args.intOpt(opts, "cold-sends"), coldKib);
                System.out.printf(Locale.ROOT, "round %d %-5s: cold send() p50 %d / p90 %d / p99 %d ns wall (%d sends, "
                                + "%d KiB read before each); load %s%n", round, impl, at(ns, 0.50), at(ns, 0.90),
                        at(ns, 0.99), ns.length, coldKib, Args.load());
            }
            producer.close(Duration.ofSeconds(10));
        }
    }

    private static void paired(FakeBroker broker, List<String> names, Map<String, String> opts) throws Exception {
        int n = Args.intOpt(opts, "paired-sends");
        int kib = Args.intOpt(opts, "paired-kib");
        byte[] value = new byte[Args.intOpt(opts, "value-bytes")];
        byte[][] keys = keys();
        try (Producer<byte[], byte[]> stock = producer(broker, "stock", "rsc-paired-stock", opts);
             Producer<byte[], byte[]> kmeta = producer(broker, "kmeta", "rsc-paired-kmeta", opts)) {
            warm(stock, names, keys, value, Args.intOpt(opts, "warm"));
            warm(kmeta, names, keys, value, Args.intOpt(opts, "warm"));
            long[] evict = new long[kib * 128];
            long[] stockNs = new long[n];
            long[] kmetaNs = new long[n];
            long[] diffNs = new long[n];
            for (int i = 0; i < n; i++) {
                ProducerRecord<byte[], byte[]> record = record(names, keys, value, i);
                if ((i & 1) == 0) {
                    stockNs[i] = coldSend(stock, record, evict);
                    kmetaNs[i] = coldSend(kmeta, record, evict);
                } else {
                    kmetaNs[i] = coldSend(kmeta, record, evict);
                    stockNs[i] = coldSend(stock, record, evict);
                }
                diffNs[i] = kmetaNs[i] - stockNs[i];
            }
            java.util.Arrays.sort(stockNs);
            java.util.Arrays.sort(kmetaNs);
            java.util.Arrays.sort(diffNs);
            System.out.printf(Locale.ROOT, "paired cold sends (%d each, %d KiB read before each, alternating): stock "
                            + "p50 %d / p90 %d / p99 %d ns, kmeta p50 %d / p90 %d / p99 %d ns; kmeta - stock per pair: "
                            + "median %d ns; load %s%n", n, kib, at(stockNs, 0.50), at(stockNs, 0.90),
                    at(stockNs, 0.99), at(kmetaNs, 0.50), at(kmetaNs, 0.90), at(kmetaNs, 0.99), at(diffNs, 0.50),
                    Args.load());
        }
    }

    /** A producer of route {@code impl} ({@code stock} or {@code kmeta}) on the broker, as every phase makes it. */
    private static Producer<byte[], byte[]> producer(FakeBroker broker, String impl, String clientId,
                                                     Map<String, String> opts) {
        return RealBroker.producer(impl, RealBroker.producerProps(broker.bootstrapServers(), clientId,
                Map.of("linger.ms", "20", "batch.size", "65536", "buffer.memory", "134217728",
                        "enable.idempotence", opts.get("idempotence"), "max.block.ms", "60000")));
    }

    /** One acknowledged send per topic (metadata and connections), then {@code n} sends, flushed. */
    private static void warm(Producer<byte[], byte[]> producer, List<String> names, byte[][] keys, byte[] value,
                             int n) throws Exception {
        for (String topic : names) {
            producer.send(new ProducerRecord<>(topic, keys[0], value)).get();
        }
        send(producer, names, keys, value, n);
        producer.flush();
    }

    /** The {@code i}-th record of a run: the topics in turn, a key of 64 per topic round. */
    private static ProducerRecord<byte[], byte[]> record(List<String> names, byte[][] keys, byte[] value, int i) {
        return new ProducerRecord<>(names.get(i % names.size()), keys[(i / names.size()) % keys.length], value);
    }

    /** One send after reading {@code evict} a cache line at a time: its wall time. */
    private static long coldSend(Producer<byte[], byte[]> producer, ProducerRecord<byte[], byte[]> record,
                                 long[] evict) {
        long sink = 0;
        for (int w = 0; w < evict.length; w += 8) {
            sink += evict[w]++;
        }
        long t0 = System.nanoTime();
        producer.send(record);
        long ns = System.nanoTime() - t0;
        return sink == Long.MIN_VALUE ? -ns : ns; // keeps the reads
    }

    private static byte[][] keys() {
        byte[][] keys = new byte[64][];
        for (int k = 0; k < keys.length; k++) {
            keys[k] = new byte[] {(byte) k, (byte) (k * 31), 7, 9};
        }
        return keys;
    }

    /** Sends {@code n} records, each after reading {@code kib} KiB (a line at a time); each send's wall time, sorted. */
    private static long[] coldSends(Producer<byte[], byte[]> producer, List<String> names, byte[][] keys,
                                    byte[] value, int n, int kib) {
        long[] evict = new long[kib * 128];
        long[] ns = new long[n];
        for (int i = 0; i < n; i++) {
            ns[i] = coldSend(producer, record(names, keys, value, i), evict);
        }
        java.util.Arrays.sort(ns);
        return ns;
    }

    private static long at(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))];
    }

    private static void send(Producer<byte[], byte[]> producer, List<String> names, byte[][] keys, byte[] value,
                             int n) {
        for (int i = 0; i < n; i++) {
            producer.send(record(names, keys, value, i));
        }
    }
}
