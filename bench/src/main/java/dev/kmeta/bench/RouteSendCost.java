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
 * measured), {@code --warm N} (500,000), {@code --value-bytes N} (100), {@code --idempotence true|false} (true).
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
        }
    }

    private static void measure(FakeBroker broker, String impl, int round, List<String> names,
                                Map<String, String> opts) throws Exception {
        Map<String, Object> props = RealBroker.producerProps(broker.bootstrapServers(), "rsc-" + impl + "-" + round,
                Map.of("linger.ms", "20", "batch.size", "65536", "buffer.memory", "134217728",
                        "enable.idempotence", opts.get("idempotence"), "max.block.ms", "60000"));
        byte[] value = new byte[Args.intOpt(opts, "value-bytes")];
        byte[][] keys = new byte[64][];
        for (int k = 0; k < keys.length; k++) {
            keys[k] = new byte[] {(byte) k, (byte) (k * 31), 7, 9};
        }
        try (Producer<byte[], byte[]> producer = RealBroker.producer(impl, props)) {
            for (String topic : names) {
                producer.send(new ProducerRecord<>(topic, keys[0], value)).get(); // metadata and connections
            }
            send(producer, names, keys, value, Args.intOpt(opts, "warm"));
            producer.flush();
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
            producer.close(Duration.ofSeconds(10));
        }
    }

    private static void send(Producer<byte[], byte[]> producer, List<String> names, byte[][] keys, byte[] value,
                             int n) {
        int topics = names.size();
        for (int i = 0; i < n; i++) {
            producer.send(new ProducerRecord<>(names.get(i % topics), keys[(i / topics) % keys.length], value));
        }
    }
}
