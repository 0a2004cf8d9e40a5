package dev.kmeta.bench;

import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.testkit.FakeBroker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * P3k, side by side through the route a user takes (a plain {@code main}): what ONE topic change costs a producer
 * that knows 100k partitions. A stock {@code KafkaProducer} and a {@code KmetaProducer.create(props)} producer (the
 * same properties) each send to their own testkit {@link FakeBroker} (3 nodes, {@code --topics} x
 * {@code --partitions}, identical layouts, so neither learns of the other's changes), both in this JVM; each is
 * warmed by sending one record to every topic.
 *
 * <p>Then, {@code --changes} times, for each producer in turn (the order alternates): a <em>control round</em> and a
 * <em>change round</em>, identical but for the change. In a change round the broker moves the leaders of every
 * partition of one topic T and bumps its epoch ({@link FakeBroker#moveLeaders}); a trigger thread sends one record
 * to T and waits for its ack: the old leader answers {@code NOT_LEADER_OR_FOLLOWER} (with the KIP-951 leader hint
 * unless {@code --hints off}), which makes both producers ask for metadata, and the batch is acked by the new leader.
 * Once the broker answered a Metadata request and every watched thread (the producer's network thread, kmeta's
 * threads, the fake broker's) went idle, two application threads each send one record:
 * <ul>
 *   <li>(a) the <em>other</em> thread, to a topic that never changes;</li>
 *   <li>(b) the <em>changed</em> thread, to T (another partition than the trigger's).</li>
 * </ul>
 * Only the first send after the producer learned the change can pay for it, so rounds alternate which goes first:
 * (a) is measured in even rounds (other thread first), (b) in odd ones (changed thread first). Each is that
 * thread's CPU time ({@code getCurrentThreadCpuTime}) and allocated bytes ({@code getCurrentThreadAllocatedBytes})
 * around its {@code send()} call alone (the record made before; the ack waited for outside). (c) is the
 * producer's network thread ({@code kafka-producer-network-thread | <client.id>}) over the whole round, from just
 * before the change until both sends were acked and every watched thread was idle again; kmeta's own threads
 * ({@code kmeta-*}, the {@code kmeta-metadata-sender | ...}) over the same window, reported apart. The control round
 * gives what the same steps cost without a change: a change's cost is the change round's number minus the
 * control's.
 *
 * <p>Targets (issue 28): a change to another topic costs the sending thread 0 B and no measurable time, and the
 * network thread nothing; a change to its own topic costs the network thread at most half of stock's time and bytes.
 *
 * <pre>{@code
 * java -Xms2g -Xmx2g -cp bench/target/benchmarks.jar dev.kmeta.bench.TopicChangeCost --changes 40 \
 *     > bench/results/p3k-topic-change-cost.txt
 * }</pre>
 * Options: {@code --changes N} (40 per producer), {@code --warmup N} (4 unmeasured change rounds per producer),
 * {@code --topics N} (1000), {@code --partitions N} (100 per topic), {@code --nodes N} (3), {@code --hints on|off}
 * (on), {@code --impl both|kmeta|kafka-clients} (both), {@code --rounds-out on|off} (print every round, on),
 * {@code --warm-threads N} / {@code --kmeta-warm-threads N}: threads that warm the stock (64) and the kmeta
 * producer (8, after {@link RouteRetainedHeap#preSubscribe}), see {@link RouteRetainedHeap#warm}. Producers use
 * {@code metadata.max.idle.ms} = 1 h (the first run, with the default 5 min, had forgotten most warmed topics).
 * A few minutes.
 *
 * <p>Not thread-safe; a program.
 */
public final class TopicChangeCost {
    static final long ACK_TIMEOUT_MS = 120_000;
    /** {@code metadata.max.idle.ms} of every producer: no warmed topic may expire during a run (default 5 min). */
    static final int IDLE_EXPIRY_MS = 3_600_000;
    static final long IDLE_MAX_MS = 20_000;
    /** Watched threads are idle when together they use less than this per poll, for {@link #IDLE_POLLS} polls. */
    static final long IDLE_CPU_NS = 300_000;
    static final int IDLE_POLLS = 4;
    static final long IDLE_POLL_MS = 10;

    private TopicChangeCost() {
    }

    /** What the program is asked to do. */
    record Settings(int changes, int warmup, int topics, int partitions, int nodes, boolean hints, String impl,
                    boolean printRounds, int warmThreads, int kmetaWarmThreads) {
    }

    /** One send's cost on its own thread. */
    record SendCost(long cpuNs, long bytes) {
    }

    /** What one round measured. */
    record Round(String route, int index, boolean change, boolean otherFirst, String topic, SendCost other,
                 SendCost changed, long networkCpuNs, long networkBytes, long kmetaCpuNs, long kmetaBytes,
                 long metadataRequests, long partitionsAnswered, long produceRequests, boolean idle, long wallMs) {
        /** The send this round measures: (a) when the other thread went first, else (b). */
        SendCost first() {
            return otherFirst ? other : changed;
        }
    }

    /** One producer under test, its broker and its threads. */
    static final class Route implements AutoCloseable {
        final String name;
        final FakeBroker broker;
        final Producer<byte[], byte[]> producer;
        /** kmeta's shared instance, made to learn every topic first ({@link RouteRetainedHeap#preSubscribe}). */
        final dev.kmeta.sender.KafkaMetadata handle;
        final String[] topics;
        final long[] networkThread;
        final long[] kmetaThreads;
        final List<String> kmetaThreadNames;
        final ExecutorService trigger = Executors.newSingleThreadExecutor(r -> new Thread(r, "p3k-trigger"));
        final ExecutorService other = Executors.newSingleThreadExecutor(r -> new Thread(r, "p3k-other"));
        final ExecutorService changed = Executors.newSingleThreadExecutor(r -> new Thread(r, "p3k-changed"));
        final byte[] value = new byte[16];

        Route(String name, Settings s, boolean kmeta) {
            this.name = name;
            this.broker = FakeBroker.start(s.nodes()).leaderHints(s.hints());
            this.topics = new String[s.topics()];
            for (int t = 0; t < s.topics(); t++) {
                topics[t] = String.format(Locale.ROOT, "topic-%05d", t);
            }
            broker.createTopics(List.of(topics), s.partitions());
            String clientId = "p3k-" + (kmeta ? "kmeta" : "stock");
            Map<String, Object> props = props(broker.bootstrapServers(), clientId);
            long[] before = ThreadMeter.threads(n -> n.startsWith("kmeta-"));
            try {
                this.handle = kmeta ? RouteRetainedHeap.preSubscribe(broker.bootstrapServers(), clientId, topics)
                        : null;
            } catch (Exception e) {
                throw new IllegalStateException(name + ": kmeta did not learn the topics", e);
            }
            this.producer = kmeta ? KmetaProducer.create(props) : new KafkaProducer<>(props);
            this.networkThread = ThreadMeter.threads(n -> n.equals("kafka-producer-network-thread | " + clientId));
            if (networkThread.length != 1) {
                throw new IllegalStateException("no network thread named for " + clientId);
            }
            List<Long> fresh = new ArrayList<>();
            for (long id : ThreadMeter.threads(n -> n.startsWith("kmeta-"))) {
                if (java.util.Arrays.stream(before).noneMatch(b -> b == id)) {
                    fresh.add(id);
                }
            }
            this.kmetaThreads = fresh.stream().mapToLong(Long::longValue).toArray();
            this.kmetaThreadNames = ThreadMeter.names(kmetaThreads);
        }

        ProducerRecord<byte[], byte[]> record(String topic, int partition) {
            return new ProducerRecord<>(topic, partition, null, value);
        }

        /** One record to every topic ({@link RouteRetainedHeap#warm}). */
        void warm(int partitions, int threads) throws Exception {
            RouteRetainedHeap.warm(List.of(producer), topics, partitions, false, threads);
        }

        @Override
        public void close() {
            trigger.shutdownNow();
            other.shutdownNow();
            changed.shutdownNow();
            producer.close(java.time.Duration.ofSeconds(10));
            if (handle != null) {
                handle.close();
            }
            broker.close();
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Args.parse(args, Map.of("changes", "40", "warmup", "4", "topics", "1000",
                "partitions", "100", "nodes", "3", "hints", "on", "impl", "both", "rounds-out", "on",
                "warm-threads", "64", "kmeta-warm-threads", "8"));
        Settings s = new Settings(Args.intOpt(opts, "changes"), Args.intOpt(opts, "warmup"),
                Args.intOpt(opts, "topics"), Args.intOpt(opts, "partitions"), Args.intOpt(opts, "nodes"),
                onOff(opts, "hints"), opts.get("impl"), onOff(opts, "rounds-out"), Args.intOpt(opts, "warm-threads"),
                Args.intOpt(opts, "kmeta-warm-threads"));
        if (!s.impl().equals("both")) {
            Wire.checkImpl(s.impl());
        }
        System.out.printf(Locale.ROOT, "TopicChangeCost (P3k): %d topics x %d partitions on %d fake nodes, %d "
                + "changes (+%d warm-up) per producer, KIP-951 hints %s, %s%n", s.topics(), s.partitions(), s.nodes(),
                s.changes(), s.warmup(), s.hints() ? "on" : "off", Args.jvm());
        Map<String, List<Round>> rounds = run(s);
        System.out.println();
        System.out.print(table(rounds));
        System.out.println("load at the end: " + Args.load());
    }

    /** Runs the rounds and returns them by route (warm-up rounds left out). */
    static Map<String, List<Round>> run(Settings s) throws Exception {
        List<Route> routes = new ArrayList<>();
        try {
            if (!s.impl().equals(Wire.IMPL_KMETA)) {
                routes.add(new Route(Wire.IMPL_KAFKA, s, false));
            }
            if (!s.impl().equals(Wire.IMPL_KAFKA)) {
                routes.add(new Route(Wire.IMPL_KMETA + " KafkaProducer", s, true));
            }
            for (Route r : routes) {
                long startNs = System.nanoTime();
                r.warm(s.partitions(),
                        r.name.startsWith(Wire.IMPL_KMETA) ? s.kmetaWarmThreads() : s.warmThreads());
                System.out.printf(Locale.ROOT, "%s: warmed (one record to each of %d topics) in %d ms; kmeta "
                        + "threads %s%n", r.name, s.topics(), (System.nanoTime() - startNs) / 1_000_000,
                        r.kmetaThreadNames);
            }
            Map<String, List<Round>> out = new LinkedHashMap<>();
            routes.forEach(r -> out.put(r.name, new ArrayList<>()));
            // Changed topics: spread over the first half of the topics; the other topics: the second half.
            int half = s.topics() / 2;
            for (int i = -s.warmup(); i < s.changes(); i++) {
                int k = i + s.warmup();
                String topic = routes.get(0).topics[(k * 37) % Math.max(1, half)];
                String stable = routes.get(0).topics[half + (k * 53) % Math.max(1, s.topics() - half)];
                boolean otherFirst = Math.floorMod(i, 2) == 0;
                for (int j = 0; j < routes.size(); j++) {
                    Route r = routes.get((j + k) % routes.size()); // alternate which producer goes first
                    for (boolean change : new boolean[] {false, true}) {
                        Round round = round(r, s, i, change, otherFirst, topic, stable, k % s.partitions());
                        if (i >= 0) {
                            out.get(r.name).add(round);
                            if (s.printRounds()) {
                                System.out.println(line(round));
                            }
                        }
                    }
                }
            }
            return out;
        } finally {
            routes.forEach(Route::close);
        }
    }

    static Round round(Route r, Settings s, int index, boolean change, boolean otherFirst, String topic,
                       String stable, int partition) throws Exception {
        Predicate<String> watched = n -> n.startsWith("kafka-producer-network-thread | p3k-")
                || n.startsWith("kmeta-") || n.startsWith("fakebroker-");
        boolean idle = ThreadMeter.awaitIdle(watched, IDLE_CPU_NS, IDLE_POLLS, IDLE_POLL_MS, IDLE_MAX_MS);
        long startNs = System.nanoTime();
        long net0cpu = ThreadMeter.cpuNs(r.networkThread);
        long net0bytes = ThreadMeter.allocatedBytes(r.networkThread);
        long km0cpu = ThreadMeter.cpuNs(r.kmetaThreads);
        long km0bytes = ThreadMeter.allocatedBytes(r.kmetaThreads);
        long md0 = r.broker.requestCount(ApiKeys.METADATA);
        long parts0 = r.broker.partitionsAnswered();
        long produce0 = r.broker.requestCount(ApiKeys.PRODUCE);
        if (change) {
            r.broker.moveLeaders(topic);
        }
        ProducerRecord<byte[], byte[]> trig = r.record(topic, partition);
        r.trigger.submit(() -> r.producer.send(trig).get(ACK_TIMEOUT_MS, TimeUnit.MILLISECONDS))
                .get(ACK_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        if (change) {
            long endNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ACK_TIMEOUT_MS);
            while (r.broker.requestCount(ApiKeys.METADATA) == md0 && System.nanoTime() < endNs) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // a poll interval
            }
        }
        idle &= ThreadMeter.awaitIdle(watched, IDLE_CPU_NS, IDLE_POLLS, IDLE_POLL_MS, IDLE_MAX_MS);
        ProducerRecord<byte[], byte[]> toOther = r.record(stable, partition);
        ProducerRecord<byte[], byte[]> toChanged = r.record(topic, (partition + 1) % s.partitions());
        SendCost other;
        SendCost changed;
        if (otherFirst) {
            other = measuredSend(r, r.other, toOther);
            changed = measuredSend(r, r.changed, toChanged);
        } else {
            changed = measuredSend(r, r.changed, toChanged);
            other = measuredSend(r, r.other, toOther);
        }
        idle &= ThreadMeter.awaitIdle(watched, IDLE_CPU_NS, IDLE_POLLS, IDLE_POLL_MS, IDLE_MAX_MS);
        return new Round(r.name, index, change, otherFirst, topic, other, changed,
                ThreadMeter.cpuNs(r.networkThread) - net0cpu, ThreadMeter.allocatedBytes(r.networkThread) - net0bytes,
                ThreadMeter.cpuNs(r.kmetaThreads) - km0cpu, ThreadMeter.allocatedBytes(r.kmetaThreads) - km0bytes,
                r.broker.requestCount(ApiKeys.METADATA) - md0, r.broker.partitionsAnswered() - parts0,
                r.broker.requestCount(ApiKeys.PRODUCE) - produce0, idle,
                (System.nanoTime() - startNs) / 1_000_000);
    }

    /** One send on {@code thread}, its cost measured around the {@code send()} call; waits for its ack after. */
    static SendCost measuredSend(Route r, ExecutorService thread, ProducerRecord<byte[], byte[]> record)
            throws Exception {
        Future<Object[]> f = thread.submit(() -> {
            long c0 = ThreadMeter.cpuNs();
            long b0 = ThreadMeter.allocatedBytes();
            Future<RecordMetadata> ack = r.producer.send(record);
            long c1 = ThreadMeter.cpuNs();
            long b1 = ThreadMeter.allocatedBytes();
            return new Object[] {new SendCost(c1 - c0, b1 - b0), ack};
        });
        Object[] result = f.get(ACK_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        @SuppressWarnings("unchecked")
        Future<RecordMetadata> ack = (Future<RecordMetadata>) result[1];
        ack.get(ACK_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        return (SendCost) result[0];
    }

    static Map<String, Object> props(String bootstrap, String clientId) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", clientId);
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        p.put("linger.ms", 0);
        p.put("max.block.ms", 60_000);
        p.put("delivery.timeout.ms", (int) ACK_TIMEOUT_MS);
        p.put("request.timeout.ms", 60_000);
        p.put("metadata.max.idle.ms", IDLE_EXPIRY_MS);
        return p;
    }

    static String line(Round r) {
        return String.format(Locale.ROOT, "round %3d %-22s %-7s %-12s first=%-7s other: %7.1f us %8d B  "
                        + "changed: %7.1f us %8d B  network: %8.2f ms %,13d B  kmeta: %8.2f ms %,13d B  metadata "
                        + "requests %d (%,d partitions)  produce requests %d  %s%d ms", r.index(), r.route(),
                r.change() ? "change" : "control", r.topic(), r.otherFirst() ? "other" : "changed",
                r.other().cpuNs() / 1e3, r.other().bytes(), r.changed().cpuNs() / 1e3, r.changed().bytes(),
                r.networkCpuNs() / 1e6, r.networkBytes(), r.kmetaCpuNs() / 1e6, r.kmetaBytes(), r.metadataRequests(),
                r.partitionsAnswered(), r.produceRequests(), r.idle() ? "" : "NOT IDLE ", r.wallMs());
    }

    /** The result table: per route and measure, median and p90 of the control and change rounds. */
    static String table(Map<String, List<Round>> byRoute) {
        StringBuilder b = new StringBuilder();
        b.append("| route | measure | control: median / p90 | change: median / p90 | change - control (medians) |\n");
        b.append("|---|---|---:|---:|---:|\n");
        for (Map.Entry<String, List<Round>> e : byRoute.entrySet()) {
            List<Round> rounds = e.getValue();
            row(b, e.getKey(), "(a) send to another topic: CPU us", rounds, true, r -> r.otherFirst(),
                    r -> r.other().cpuNs() / 1e3);
            row(b, e.getKey(), "(a) send to another topic: bytes", rounds, true, r -> r.otherFirst(),
                    r -> r.other().bytes());
            row(b, e.getKey(), "(b) send to the changed topic: CPU us", rounds, true, r -> !r.otherFirst(),
                    r -> r.changed().cpuNs() / 1e3);
            row(b, e.getKey(), "(b) send to the changed topic: bytes", rounds, true, r -> !r.otherFirst(),
                    r -> r.changed().bytes());
            row(b, e.getKey(), "(c) network thread per round: CPU ms", rounds, false, r -> true,
                    r -> r.networkCpuNs() / 1e6);
            row(b, e.getKey(), "(c) network thread per round: bytes", rounds, false, r -> true,
                    r -> r.networkBytes());
            row(b, e.getKey(), "kmeta threads per round: CPU ms", rounds, false, r -> true,
                    r -> r.kmetaCpuNs() / 1e6);
            row(b, e.getKey(), "kmeta threads per round: bytes", rounds, false, r -> true, r -> r.kmetaBytes());
            row(b, e.getKey(), "Metadata requests per round", rounds, false, r -> true, r -> r.metadataRequests());
            row(b, e.getKey(), "partitions in Metadata answers per round", rounds, false, r -> true,
                    r -> r.partitionsAnswered());
            long notIdle = rounds.stream().filter(r -> !r.idle()).count();
            if (notIdle > 0) {
                b.append("| ").append(e.getKey()).append(" | rounds whose threads did not go idle within ")
                        .append(IDLE_MAX_MS).append(" ms | ").append(notIdle).append(" | | |\n");
            }
        }
        return b.toString();
    }

    private static void row(StringBuilder b, String route, String measure, List<Round> rounds, boolean decimals,
                            Predicate<Round> which, java.util.function.ToDoubleFunction<Round> f) {
        double[] control = values(rounds, r -> !r.change() && which.test(r), f);
        double[] change = values(rounds, r -> r.change() && which.test(r), f);
        String fmt = decimals ? "%.1f" : "%,.0f";
        if (measure.contains("ms")) {
            fmt = "%.2f";
        }
        b.append(String.format(Locale.ROOT, "| %s | %s (n=%d) | " + fmt + " / " + fmt + " | " + fmt + " / " + fmt
                        + " | " + fmt + " |%n", route, measure, change.length, pct(control, 50), pct(control, 90),
                pct(change, 50), pct(change, 90), pct(change, 50) - pct(control, 50)));
    }

    private static double[] values(List<Round> rounds, Predicate<Round> which,
                                   java.util.function.ToDoubleFunction<Round> f) {
        return rounds.stream().filter(which).mapToDouble(f).sorted().toArray();
    }

    /** Nearest-rank percentile of sorted values; NaN when there are none. */
    static double pct(double[] sorted, int p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static boolean onOff(Map<String, String> opts, String key) {
        String v = opts.get(key);
        if (!v.equals("on") && !v.equals("off")) {
            throw new IllegalArgumentException("--" + key + " must be on or off: " + v);
        }
        return v.equals("on");
    }
}
