package dev.kmeta.bench;

import dev.kmeta.streams.KmetaClientSupplier;
import dev.kmeta.testkit.KafkaCluster;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Issue 41, side by side (a plain {@code main} against a real in-process broker from testkit behind a counting
 * proxy): the Metadata requests a Kafka Streams application makes, with Streams' own clients and with
 * {@link KmetaClientSupplier}'s (producers on one shared kmeta instance; consumers and admin stock), alternating.
 * The topology has a repartition and two state stores (in-memory: {@code groupBy} + {@code count}, {@code groupByKey}
 * + {@code reduce}); a stock producer feeds {@code --rate} records/s. Per run, counted at the proxy per client id
 * (the request header's {@code client.id}) and summed per kind of client - producers (kmeta's own requests carry its
 * first producer's id), main consumers, restore consumers, admin:
 * <ul>
 *   <li>start-up: {@code start()} to RUNNING, its Metadata requests and how long it took;</li>
 *   <li>the first {@code --settle-s} seconds of feeding once RUNNING (first sends, first commits, late joins);</li>
 *   <li>steady: the next {@code --steady-s} seconds of feeding, per minute;</li>
 *   <li>missing: the input topic deleted for {@code --missing-s} seconds (stream threads that die are replaced),
 *   per second on average and in the worst second.</li>
 * </ul>
 *
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar dev.kmeta.bench.StreamsMetadataHarness --threads 8 \
 *     > bench/results/streams-metadata-8.txt
 * }</pre>
 * Options: {@code --threads N} (8), {@code --rounds N} (1: each a stock run then a kmeta run), {@code --steady-s N}
 * (30), {@code --missing-s N} (20), {@code --settle-s N} (10), {@code --rate N} (1000 records/s), {@code --eos true|false} (false:
 * at-least-once), {@code --metadata-max-age-ms N} (unset: Kafka's default, for every client).
 *
 * <p>Not thread-safe; a program.
 */
public final class StreamsMetadataHarness {
    private static final short METADATA = 3;
    private static final int PARTITIONS = 12;
    private static final String FEEDER = "feeder";

    private StreamsMetadataHarness() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Args.parse(args, Map.of("threads", "8", "rounds", "1", "steady-s", "30",
                "missing-s", "20", "settle-s", "10", "rate", "1000", "eos", "false", "metadata-max-age-ms", ""));
        int threads = Args.intOpt(opts, "threads");
        int rounds = Args.intOpt(opts, "rounds");
        System.out.printf(Locale.ROOT, "StreamsMetadataHarness: %d stream threads, %s, %s records/s, steady %s s, "
                + "input missing %s s, %d round(s), %s%n", threads, Boolean.parseBoolean(opts.get("eos"))
                ? "exactly_once_v2" : "at_least_once", opts.get("rate"), opts.get("steady-s"),
                opts.get("missing-s"), rounds, Args.jvm());
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(1).withProxies().build().start()) {
            for (int round = 1; round <= rounds; round++) {
                for (boolean kmeta : new boolean[] {false, true}) {
                    new Run(cluster, opts, kmeta, round).run();
                }
            }
        }
    }

    /** One application's run: start-up, steady, missing input. */
    private static final class Run {
        private final KafkaCluster cluster;
        private final Map<String, String> opts;
        private final boolean kmeta;
        private final String name;
        private final String input;

        Run(KafkaCluster cluster, Map<String, String> opts, boolean kmeta, int round) {
            this.cluster = cluster;
            this.opts = opts;
            this.kmeta = kmeta;
            this.name = (kmeta ? "kmeta" : "stock") + "-" + round;
            this.input = "input-" + name;
        }

        void run() throws Exception {
            cluster.createTopic(input, PARTITIONS, 1);
            Path state = Files.createTempDirectory("streams-harness");
            AtomicBoolean feeding = new AtomicBoolean(true);
            ScheduledExecutorService feeder = Executors.newSingleThreadScheduledExecutor();
            try (KafkaProducer<String, String> feed = new KafkaProducer<>(feederProps())) {
                reset();
                KafkaStreams streams = new KafkaStreams(topology(), streamsProps(state));
                streams.setUncaughtExceptionHandler(e ->
                        StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD);
                CountDownLatch running = new CountDownLatch(1);
                streams.setStateListener((now, before) -> {
                    if (now == KafkaStreams.State.RUNNING) {
                        running.countDown();
                    }
                });
                long start = System.nanoTime();
                streams.start();
                if (!running.await(120, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(name + ": not RUNNING after 120 s but " + streams.state());
                }
                long runningMs = (System.nanoTime() - start) / 1_000_000;
                Map<String, Long> startup = byKind();
                reset();
                int rate = Args.intOpt(opts, "rate");
                long periodUs = Math.max(1, 1_000_000L / rate);
                int[] n = {0};
                feeder.scheduleAtFixedRate(() -> {
                    if (feeding.get()) {
                        feed.send(new ProducerRecord<>(input, "k" + (n[0] % 1000), "v" + (n[0]++ % 97)));
                    }
                }, 0, periodUs, TimeUnit.MICROSECONDS);
                TimeUnit.SECONDS.sleep(Args.intOpt(opts, "settle-s")); // first sends, first commits, rebalances
                Map<String, Long> settling = byKind();
                reset();
                int steadyS = Args.intOpt(opts, "steady-s");
                TimeUnit.SECONDS.sleep(steadyS);
                Map<String, Long> steady = byKind();
                feeding.set(false);
                reset();
                cluster.deleteTopic(input);
                int missingS = Args.intOpt(opts, "missing-s");
                long worst = 0;
                Map<String, Long> last = byKind();
                for (int s = 0; s < missingS; s++) {
                    TimeUnit.SECONDS.sleep(1);
                    Map<String, Long> now = byKind();
                    worst = Math.max(worst, now.getOrDefault("all", 0L) - last.getOrDefault("all", 0L));
                    last = now;
                }
                Map<String, Long> missing = byKind();
                streams.close(java.time.Duration.ofSeconds(30));
                System.out.printf(Locale.ROOT, "%s: RUNNING after %d ms; Metadata requests at start-up %s; the "
                                + "first %s s of feeding %s; steady per minute %s; input missing, per s %.1f (worst "
                                + "second %d): %s%n", name, runningMs, startup, opts.get("settle-s"), settling,
                        perMinute(steady, steadyS), missing.getOrDefault("all", 0L) / (double) missingS, worst,
                        missing);
            } finally {
                feeder.shutdownNow();
            }
        }

        /** {@link StreamsTopology}'s application on this run's input, its output topic made first. */
        private org.apache.kafka.streams.Topology topology() {
            cluster.createTopic("out-" + name, PARTITIONS, 1);
            return StreamsTopology.build(input, name);
        }

        private Properties streamsProps(Path state) {
            Properties p = new Properties();
            p.put(StreamsConfig.APPLICATION_ID_CONFIG, "app-" + name);
            p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.proxiedBootstrapServers());
            p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Args.intOpt(opts, "threads"));
            p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
            p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
            p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
            if (Boolean.parseBoolean(opts.get("eos"))) {
                p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
            }
            if (!opts.get("metadata-max-age-ms").isEmpty()) {
                p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, Args.intOpt(opts, "metadata-max-age-ms"));
            }
            if (kmeta) {
                p.put(StreamsConfig.DEFAULT_CLIENT_SUPPLIER_CONFIG, KmetaClientSupplier.class);
            }
            return p;
        }

        private Map<String, Object> feederProps() {
            Map<String, Object> p = new HashMap<>();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.proxiedBootstrapServers());
            p.put(ProducerConfig.CLIENT_ID_CONFIG, FEEDER);
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            return p;
        }

        private void reset() {
            for (int id : cluster.brokerIds()) {
                cluster.proxy(id).resetCounters();
            }
        }

        /** Metadata requests since the last reset, per kind of client ("all": every kind but the feeder). */
        private Map<String, Long> byKind() {
            return metadataRequestsByKind(cluster, Set.of());
        }
    }

    /**
     * Metadata requests the cluster's proxies counted since their last reset, per kind of Streams client
     * ({@link #kindOf}; "all": every kind), leaving out the feeder and the clients named in {@code ignored}.
     */
    static Map<String, Long> metadataRequestsByKind(KafkaCluster cluster, Set<String> ignored) {
        Map<String, Long> kinds = new TreeMap<>();
        for (int id : cluster.brokerIds()) {
            cluster.proxy(id).requestCountsByClient(METADATA).forEach((client, count) -> {
                String kind = ignored.contains(client) ? null : kindOf(client);
                if (kind != null) {
                    kinds.merge(kind, count, Long::sum);
                    kinds.merge("all", count, Long::sum);
                }
            });
        }
        return kinds;
    }

    /** The kind of a Streams client by its client id's suffix; null for the feeder. */
    static String kindOf(String clientId) {
        if (clientId.equals(FEEDER)) {
            return null;
        }
        if (clientId.endsWith("-restore-consumer")) {
            return "restore";
        }
        if (clientId.endsWith("-global-consumer")) {
            return "global";
        }
        if (clientId.endsWith("-consumer")) {
            return "consumer";
        }
        if (clientId.endsWith("-producer")) {
            return "producer";
        }
        if (clientId.endsWith("-admin")) {
            return "admin";
        }
        return "other:" + clientId;
    }

    /** Counts over {@code seconds}, as per minute. */
    static Map<String, Long> perMinute(Map<String, Long> counts, int seconds) {
        Map<String, Long> perMinute = new TreeMap<>();
        counts.forEach((k, v) -> perMinute.put(k, Math.round(v * 60.0 / seconds)));
        return perMinute;
    }
}
