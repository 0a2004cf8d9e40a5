package dev.kmeta.bench;

import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.testkit.FakeBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * P5k, side by side through the route a user takes (a plain {@code main}): the heap that producers which sent to a
 * 100k-partition cluster keep alive, per partition of the cluster - for the KafkaProducer route, kmeta's snapshot
 * plus the Kafka views built of it (today {@code InstanceViews}: a {@code Cluster} and a {@code MetadataSnapshot}),
 * against stock {@code KafkaProducer}s' own metadata, in the same run, on one testkit {@link FakeBroker}.
 *
 * <p>Scenarios, each for stock producers and for {@code KmetaProducer.create(props)} producers (which share one kmeta
 * instance, the default):
 * <ul>
 *   <li>{@code 1 producer}: one producer sends to every topic;</li>
 *   <li>{@code 10 producers, disjoint}: each of 10 producers sends to its tenth of the topics;</li>
 *   <li>{@code 10 producers, all topics}: each of 10 producers sends to every topic.</li>
 * </ul>
 * Producers use {@code metadata.max.idle.ms} = 1 h, so that no topic expires during the run.
 * <b>Method</b> (as {@link RetainedHeap}): class histograms ({@code GC.class_histogram}, which runs a full GC
 * first) taken before the producers are made and while they are held, warmed (one record acknowledged per topic and
 * producer, after {@link #warm}'s metadata step); retained = the difference. That includes what every
 * KafkaProducer keeps whatever its metadata (its accumulator's pooled 16 KB buffers, per-topic sensors,
 * threads), the same on both routes. To isolate the part that grows with partitions (the metadata), each scenario also runs on a second fake cluster
 * with the same topic names but 1 partition each ({@code --marginal on}): the <em>marginal</em> bytes per partition
 * are {@code (retained at P partitions - retained at T partitions) / (P - T)}, which cancels per-topic and
 * per-producer costs. Both are printed, per partition of the cluster (100k), whatever the number of producers.
 * After the producers are closed (and kmeta's pre-subscribing handle closed and dropped: a reference the harness
 * kept to it pinned the closed instance's last snapshot, 14-15 MB at 100k, until issue 38) a third histogram shows
 * what they left behind ({@code left after close}).
 *
 * <pre>{@code
 * java -Xms4g -Xmx4g -cp bench/target/benchmarks.jar dev.kmeta.bench.RouteRetainedHeap \
 *     > bench/results/p5k-route-retained-heap.txt
 * }</pre>
 * Options: {@code --topics N} (1000), {@code --partitions N} (100 per topic), {@code --producers N} (10),
 * {@code --nodes N} (3), {@code --marginal on|off} (on), {@code --top N} (classes listed per measurement, 6),
 * {@code --impl both|kmeta|kafka-clients}, {@code --warm-threads N} (32 per stock producer),
 * {@code --kmeta-warm-threads N} (8 per kmeta producer, after {@link #preSubscribe}), {@code --warmup on|off} (on:
 * both routes run once, unreported, on 10 one-partition topics first, so that neither route's first scenario carries
 * the JVM's one-time costs - classes, JFR, interned names). Minutes; 10 stock producers that each know 100k partitions hold about
 * 1 GB.
 *
 * <p>Not thread-safe; a program.
 */
public final class RouteRetainedHeap {
    private static volatile List<Producer<byte[], byte[]>> held;

    private RouteRetainedHeap() {
    }

    /** One measurement. */
    record Measured(String scenario, String route, int partitionsPerTopic, long retainedBytes, long leftBytes,
                    Map<String, long[]> diff, Map<String, long[]> leftDiff) {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Args.parse(args, Map.of("topics", "1000", "partitions", "100", "producers",
                "10", "nodes", "3", "marginal", "on", "top", "6", "impl", "both", "warm-threads", "32",
                "kmeta-warm-threads", "8", "warmup", "on"));
        int topics = Args.intOpt(opts, "topics");
        int partitions = Args.intOpt(opts, "partitions");
        int producers = Args.intOpt(opts, "producers");
        int top = Args.intOpt(opts, "top");
        boolean marginal = opts.get("marginal").equals("on");
        String impl = opts.get("impl");
        if (!impl.equals("both")) {
            Wire.checkImpl(impl);
        }
        System.out.printf(Locale.ROOT, "RouteRetainedHeap (P5k): %d topics x %d partitions on %d fake nodes, 1 and "
                + "%d producers, marginal %s, %s%n", topics, partitions, Args.intOpt(opts, "nodes"), producers,
                marginal ? "on" : "off", Args.jvm());
        String[] names = new String[topics];
        for (int t = 0; t < topics; t++) {
            names[t] = String.format(Locale.ROOT, "topic-%05d", t);
        }
        if (opts.get("warmup").equals("on")) { // one-time costs (classes, JFR, interned names) land on no scenario
            try (FakeBroker broker = FakeBroker.start(Args.intOpt(opts, "nodes"))) {
                broker.createTopics(List.of(names).subList(0, Math.min(10, topics)), 1);
                String[] few = List.of(names).subList(0, Math.min(10, topics)).toArray(new String[0]);
                for (String route : routes(impl)) {
                    measure("warm-up", route, broker, few, 1, 2, false, 1, 1);
                }
            }
        }
        List<Integer> shapes = marginal ? List.of(partitions, 1) : List.of(partitions);
        List<Measured> all = new ArrayList<>();
        for (int shape : shapes) {
            try (FakeBroker broker = FakeBroker.start(Args.intOpt(opts, "nodes"))) {
                broker.createTopics(List.of(names), shape);
                Map<String, int[]> scenarios = new LinkedHashMap<>(); // name -> {producers, disjoint?1:0}
                scenarios.put("1 producer", new int[] {1, 0});
                scenarios.put(producers + " producers, disjoint topics", new int[] {producers, 1});
                scenarios.put(producers + " producers, all topics", new int[] {producers, 0});
                for (Map.Entry<String, int[]> sc : scenarios.entrySet()) {
                    for (String route : routes(impl)) {
                        Measured m = measure(sc.getKey(), route, broker, names, shape, sc.getValue()[0],
                                sc.getValue()[1] == 1, Args.intOpt(opts, "warm-threads"),
                                Args.intOpt(opts, "kmeta-warm-threads"));
                        all.add(m);
                        System.out.printf(Locale.ROOT, "%-32s %-22s %3d partitions/topic: retained %,14d B = "
                                        + "%8.1f B/partition; left after close %,12d B  (load %s)%n", m.scenario(),
                                m.route(), shape, m.retainedBytes(), (double) m.retainedBytes() / (topics * shape),
                                m.leftBytes(), Args.load());
                        if (shape == partitions) {
                            printTop(m.diff(), top);
                            System.out.println("  left after close:");
                            printTop(m.leftDiff(), Math.min(top, 4));
                        }
                    }
                }
            }
        }
        System.out.println();
        long cluster = (long) topics * partitions;
        System.out.println("| scenario | route | retained MB | B/partition (of " + cluster + ") | marginal "
                + "B/partition (" + partitions + " vs 1 per topic) | left after close, KB |");
        System.out.println("|---|---|---:|---:|---:|---:|");
        for (Measured m : all) {
            if (m.partitionsPerTopic() != partitions) {
                continue;
            }
            String marg = "-";
            for (Measured small : all) {
                if (small.partitionsPerTopic() == 1 && partitions != 1 && small.scenario().equals(m.scenario())
                        && small.route().equals(m.route())) {
                    marg = String.format(Locale.ROOT, "%.1f", (double) (m.retainedBytes() - small.retainedBytes())
                            / (cluster - topics));
                }
            }
            System.out.printf(Locale.ROOT, "| %s | %s | %.1f | %.1f | %s | %.0f |%n", m.scenario(), m.route(),
                    m.retainedBytes() / 1e6, (double) m.retainedBytes() / cluster, marg, m.leftBytes() / 1e3);
        }
        System.out.println("load at the end: " + Args.load());
    }

    private static List<String> routes(String impl) {
        List<String> r = new ArrayList<>();
        if (!impl.equals(Wire.IMPL_KMETA)) {
            r.add(Wire.IMPL_KAFKA);
        }
        if (!impl.equals(Wire.IMPL_KAFKA)) {
            r.add(Wire.IMPL_KMETA + " KafkaProducer");
        }
        return r;
    }

    static Measured measure(String scenario, String route, FakeBroker broker, String[] names, int shape,
                            int producers, boolean disjoint, int warmThreads, int kmetaWarmThreads)
            throws Exception {
        Map<String, long[]> before = RetainedHeap.histogram();
        boolean kmeta = route.startsWith(Wire.IMPL_KMETA);
        dev.kmeta.sender.KafkaMetadata handle = kmeta
                ? preSubscribe(broker.bootstrapServers(), "p5k-kmeta-0", names) : null;
        List<Producer<byte[], byte[]>> made = new ArrayList<>();
        for (int i = 0; i < producers; i++) {
            Map<String, Object> props = TopicChangeCost.props(broker.bootstrapServers(),
                    "p5k-" + (route.startsWith(Wire.IMPL_KMETA) ? "kmeta" : "stock") + "-" + i);
            made.add(route.startsWith(Wire.IMPL_KMETA) ? KmetaProducer.create(props) : new KafkaProducer<>(props));
        }
        warm(made, names, shape, disjoint, route.startsWith(Wire.IMPL_KMETA) ? kmetaWarmThreads : warmThreads);
        held = made;
        Map<String, long[]> after = RetainedHeap.histogram();
        for (Producer<byte[], byte[]> p : made) {
            p.close(Duration.ofSeconds(10));
        }
        if (handle != null) {
            handle.close();
            handle = null; // a closed handle is the harness's own reference: what it pins is not what producers left
        }
        made.clear();
        held = null;
        Map<String, long[]> closed = RetainedHeap.histogram();
        Map<String, long[]> diff = RetainedHeap.diff(before, after);
        long retained = diff.values().stream().mapToLong(v -> v[1]).sum();
        Map<String, long[]> leftDiff = RetainedHeap.diff(before, closed);
        long left = leftDiff.values().stream().mapToLong(v -> v[1]).sum();
        return new Measured(scenario, route, shape, retained, left, diff, leftDiff);
    }

    /**
     * kmeta's shared instance for {@code bootstrap}, made first (with the producers' {@code client.id} and idle
     * expiry) and made to learn every topic through kmeta's own API from 64 threads ({@code awaitTopic}): on kmeta's
     * main of 2026-12-02 a KmetaProducer learning 1,000 topics itself rebuilt a whole Kafka {@code Cluster} per new
     * topic on every waiting thread (20 minutes at load 20 with one thread; stalled with 10 or 128). Producers made
     * next share the instance; the handle is closed with them.
     */
    static dev.kmeta.sender.KafkaMetadata preSubscribe(String bootstrap, String clientId, String[] names)
            throws Exception {
        Map<String, Object> p = new java.util.HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", clientId);
        p.put("metadata.max.idle.ms", TopicChangeCost.IDLE_EXPIRY_MS);
        dev.kmeta.sender.KafkaMetadata handle = dev.kmeta.sender.KafkaMetadata.shared(p);
        ExecutorService pool = Executors.newFixedThreadPool(64);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (String topic : names) {
                done.add(pool.submit(() -> handle.awaitTopic(topic, dev.kmeta.metadata.MetadataClient.ANY_PARTITION,
                        handle.newDeadline(Duration.ofMillis(TopicChangeCost.ACK_TIMEOUT_MS)))));
            }
            for (Future<?> f : done) {
                f.get(TopicChangeCost.ACK_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return handle;
    }

    /**
     * Warms producers in two steps, so that stock producers learn 1,000 topics in a few dozen metadata requests
     * instead of one each (kafka-clients rebuilds its whole snapshot per answer: one thread per producer took 400 s
     * at load 13) and keep few pooled batch buffers: first {@code partitionsFor} of each producer's topics from
     * {@code threadsPerProducer} threads per producer (the metadata wait of a send, without a batch), then one record
     * to each of its topics, acknowledged before the next (one thread per producer).
     */
    static void warm(List<Producer<byte[], byte[]>> producers, String[] names, int shape, boolean disjoint,
                     int threadsPerProducer) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(producers.size() * threadsPerProducer);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < producers.size(); i++) {
                Producer<byte[], byte[]> p = producers.get(i);
                for (int j = 0; j < threadsPerProducer; j++) {
                    int mine = i;
                    int slice = j;
                    done.add(pool.submit(() -> {
                        int n = 0;
                        for (int t = 0; t < names.length; t++) {
                            if (!disjoint || t % producers.size() == mine) {
                                if (n++ % threadsPerProducer == slice) {
                                    p.partitionsFor(names[t]);
                                }
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) {
                f.get(TopicChangeCost.ACK_TIMEOUT_MS * 10, TimeUnit.MILLISECONDS);
            }
            done.clear();
            byte[] value = new byte[16];
            for (int i = 0; i < producers.size(); i++) {
                Producer<byte[], byte[]> p = producers.get(i);
                int mine = i;
                done.add(pool.submit(() -> {
                    for (int t = 0; t < names.length; t++) {
                        if (!disjoint || t % producers.size() == mine) {
                            p.send(new ProducerRecord<>(names[t], t % shape, null, value))
                                    .get(TopicChangeCost.ACK_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(TopicChangeCost.ACK_TIMEOUT_MS * 10, TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void printTop(Map<String, long[]> diff, int top) {
        diff.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
                .limit(top)
                .forEach(c -> System.out.printf(Locale.ROOT, "      %,14d B %,10d instances  %s%n", c.getValue()[1],
                        c.getValue()[0], c.getKey()));
    }
}
