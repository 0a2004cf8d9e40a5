package dev.kmeta.bench;

import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.streams.KmetaClientSupplier;
import dev.kmeta.testkit.KafkaCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Issue 41 item 4, the measurements {@link StreamsMetadataHarness} does not make: a Kafka Streams 4.4 application (the
 * same topology: a repartition and two in-memory stores) with Streams' own clients and with
 * {@link KmetaClientSupplier}'s, alternating (the order flips every round), against real brokers from testkit behind
 * proxies that count Metadata requests per client id. Three modes:
 * <ul>
 *   <li>{@code --mode startup}: {@code new KafkaStreams} and {@code start()} to RUNNING, and the heap the
 *   application holds - used heap after a full GC with the application RUNNING (idle, then after {@code --settle-s}
 *   seconds of feeding) minus the same before it was built, and that difference by class (the JVM's class
 *   histogram: kmeta, kafka-clients, Kafka Streams, byte arrays, the rest). The brokers run in child JVMs, so this
 *   JVM holds only the application and the feeder.</li>
 *   <li>{@code --mode leader-move}: 3 brokers, every topic of the application with replication factor 3; after
 *   {@code --settle-s} s of feeding and a {@code --steady-s} s window, every partition of the application's topics
 *   (input, output, repartition, changelogs) that broker 0 leads gets its replicas reordered and a preferred
 *   election: its leader moves. Metadata requests per kind of client in the steady window (per minute), in the
 *   first 10 s after the move, and in the next {@code --steady-s} s (per minute).</li>
 *   <li>{@code --mode fence}: exactly-once v2; after {@code --settle-s} s of feeding, a zombie - a producer with one
 *   stream thread's {@code transactional.id} - calls {@code initTransactions()}, fencing that thread's producer;
 *   Streams closes it and builds a new one ({@code reInitializeProducer}, through the supplier). Measured: from the
 *   zombie's fence to the replacement's construction, from the construction to its first acknowledged send (a
 *   {@code ProducerInterceptor} installed on every producer with {@code producer.interceptor.classes}), and the
 *   producers' Metadata requests the broker served in between (kmeta's carry its first producer's client id).</li>
 * </ul>
 *
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar dev.kmeta.bench.StreamsLifecycleHarness --mode startup --rounds 5
 * java -cp bench/target/benchmarks.jar dev.kmeta.bench.StreamsLifecycleHarness --mode leader-move --rounds 3
 * java -cp bench/target/benchmarks.jar dev.kmeta.bench.StreamsLifecycleHarness --mode fence --rounds 3 --threads 2
 * }</pre>
 * Options: {@code --mode startup|leader-move|fence}, {@code --threads N} (8), {@code --rounds N} (3),
 * {@code --settle-s N} (10), {@code --steady-s N} (30), {@code --rate N} (1000 records/s), {@code --eos true|false}
 * (false; fence is always exactly-once v2), {@code --fences N} (1, fences per run in fence mode),
 * {@code --routes stock,kmeta} (the routes of each round, in this order in odd rounds and reversed in even ones;
 * {@code --routes kmeta --rounds 1} measures one application in a fresh JVM, as a user starts one: the JVM's first
 * application pays the class loading of Kafka Streams, kafka-clients and kmeta), {@code --prewarm true} (startup
 * mode: before each application a stock producer and a {@code KmetaProducer.create} one send a record and close, on
 * either route: what is left once kmeta's classes are loaded), {@code --sample true} (startup mode: the stream
 * threads' stacks sampled every 10 ms from start() to RUNNING).
 *
 * <p>Not thread-safe; a program.
 */
public final class StreamsLifecycleHarness {
    private static final short JOIN_GROUP = 11;
    private static final int PARTITIONS = 12;
    private static final String FEEDER = "feeder";
    private static final String ZOMBIE = "zombie";

    private StreamsLifecycleHarness() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Args.parse(args, Map.ofEntries(Map.entry("mode", "startup"),
                Map.entry("threads", "8"), Map.entry("rounds", "3"), Map.entry("settle-s", "10"),
                Map.entry("steady-s", "30"), Map.entry("rate", "1000"), Map.entry("eos", "false"),
                Map.entry("fences", "1"), Map.entry("routes", "stock,kmeta"), Map.entry("prewarm", "false"),
                Map.entry("sample", "false")));
        String mode = opts.get("mode");
        int rounds = Args.intOpt(opts, "rounds");
        boolean eos = mode.equals("fence") || Boolean.parseBoolean(opts.get("eos"));
        System.out.printf(Locale.ROOT, "StreamsLifecycleHarness --mode %s: %s stream threads, %s, %s records/s, "
                        + "%d round(s), %s, %d cores%n", mode, opts.get("threads"), eos ? "exactly_once_v2"
                        : "at_least_once", opts.get("rate"), rounds, Args.jvm(),
                Runtime.getRuntime().availableProcessors());
        KafkaCluster.Builder builder = KafkaCluster.builder().withProxies();
        switch (mode) {
            case "startup" -> builder.brokers(1).childProcesses(true);
            case "leader-move" -> builder.brokers(3);
            case "fence" -> builder.brokers(1);
            default -> throw new IllegalArgumentException("--mode startup|leader-move|fence: " + mode);
        }
        try (KafkaCluster cluster = builder.build().start()) {
            System.out.println("cluster: " + cluster);
            for (int round = 1; round <= rounds; round++) {
                List<String> order = new ArrayList<>(List.of(opts.get("routes").split(",")));
                if (round % 2 == 0) {
                    Collections.reverse(order);
                }
                for (String route : order) {
                    if (!route.equals("stock") && !route.equals("kmeta")) {
                        throw new IllegalArgumentException("--routes: stock and/or kmeta, comma-separated: " + route);
                    }
                    boolean kmeta = route.equals("kmeta");
                    App app = new App(cluster, opts, kmeta, round, eos, mode.equals("leader-move") ? 3 : 1);
                    switch (mode) {
                        case "startup" -> app.startup();
                        case "leader-move" -> app.leaderMove();
                        default -> app.fence();
                    }
                }
            }
        }
        System.out.println("done, load " + Args.load());
    }

    /** One application: its topics, its feeder, one mode's run. */
    private static final class App {
        private final KafkaCluster cluster;
        private final Map<String, String> opts;
        private final boolean kmeta;
        private final boolean eos;
        private final int replication;
        private final String name;
        private final String input;
        private final String applicationId;

        App(KafkaCluster cluster, Map<String, String> opts, boolean kmeta, int round, boolean eos, int replication) {
            this.cluster = cluster;
            this.opts = opts;
            this.kmeta = kmeta;
            this.eos = eos;
            this.replication = replication;
            this.name = (kmeta ? "kmeta" : "stock") + "-" + round;
            this.input = "input-" + name;
            this.applicationId = "app-" + name;
        }

        /** Items 2 and 3: the time to RUNNING and the heap the application holds. */
        void startup() throws Exception {
            cluster.createTopic(input, PARTITIONS, replication);
            if (Boolean.parseBoolean(opts.get("prewarm"))) {
                prewarm();
            }
            Path state = Files.createTempDirectory("streams-lifecycle");
            try (Feeder feed = new Feeder(cluster, input, Args.intOpt(opts, "rate"))) {
                Topology topology = topology();
                Map<String, Long> beforeClasses = classes();
                Map<String, Long> before = groups(beforeClasses);
                long beforeUsed = usedAfterGc();
                String loadBefore = Args.load();
                Map<Long, Long> cpuBefore = threadCpu();
                long processCpuBefore = processCpuNs();
                reset();
                long t0 = System.nanoTime();
                TimedSupplier supplier = new TimedSupplier(kmeta ? new KmetaClientSupplier()
                        : new DefaultKafkaClientSupplier());
                KafkaStreams streams = new KafkaStreams(topology, streamsProps(state), supplier);
                long constructedNs = System.nanoTime();
                CountDownLatch running = running(streams);
                long[] jvmAtStart = jvmWork();
                StackSampler sampler = Boolean.parseBoolean(opts.get("sample")) ? new StackSampler() : null;
                long startNs = System.nanoTime();
                streams.start();
                if (!running.await(120, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(name + ": not RUNNING after 120 s but " + streams.state());
                }
                if (sampler != null) {
                    System.out.printf(Locale.ROOT, "%s: stream threads from start() to RUNNING, sampled every 10 ms "
                            + "(state and the first Kafka or kmeta frame): %s%n", name, sampler.stop(15));
                }
                long runningNs = System.nanoTime();
                long[] jvmAtRunning = jvmWork();
                long processCpuMs = (processCpuNs() - processCpuBefore) / 1_000_000;
                Map<String, Long> cpuMs = cpuByThreadKind(cpuBefore);
                Map<String, Long> startupRequests = byKind();
                long joins = requests(JOIN_GROUP);
                long idleUsed = usedAfterGc();
                Map<String, Long> idle = histogram();
                feed.start();
                TimeUnit.SECONDS.sleep(Args.intOpt(opts, "settle-s"));
                long fedUsed = usedAfterGc();
                Map<String, Long> fedClasses = classes();
                Map<String, Long> fed = groups(fedClasses);
                long closeStart = System.nanoTime();
                streams.close(Duration.ofSeconds(30));
                long closeMs = (System.nanoTime() - closeStart) / 1_000_000;
                System.out.printf(Locale.ROOT, "%s: new KafkaStreams %d ms (%s); start() to RUNNING %d ms; CPU from new "
                                + "KafkaStreams to RUNNING %d ms, by thread %s; from start() to RUNNING: classes "
                                + "loaded %d, JIT %d ms, GC %d ms; JoinGroup requests %d; Metadata requests %s; heap after GC over the baseline: RUNNING idle %.1f MB %s, after %s s "
                                + "of feeding %.1f MB %s; close %d ms; load %s -> %s%n    %s: the most grown classes after "
                                + "feeding, KB: %s%n", name,
                        (constructedNs - t0) / 1_000_000, supplier, (runningNs - startNs) / 1_000_000,
                        processCpuMs, cpuMs, jvmAtRunning[0] - jvmAtStart[0], jvmAtRunning[1] - jvmAtStart[1],
                        jvmAtRunning[2] - jvmAtStart[2], joins, startupRequests,
                        (idleUsed - beforeUsed) / 1048576.0, diffKb(before, idle), opts.get("settle-s"),
                        (fedUsed - beforeUsed) / 1048576.0, diffKb(before, fed), closeMs, loadBefore, Args.load(),
                        name, top(beforeClasses, fedClasses, 12));
            }
        }

        /**
         * Loads and runs the clients' code once before the measured application, on both routes alike: a stock
         * KafkaProducer and one made by {@code KmetaProducer.create} each send one record and close. Taken away, what
         * a fresh JVM's first application pays for loading kmeta's classes.
         */
        private void prewarm() {
            for (boolean onKmeta : new boolean[] {false, true}) {
                Map<String, Object> p = new HashMap<>();
                p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.proxiedBootstrapServers());
                p.put(ProducerConfig.CLIENT_ID_CONFIG, FEEDER);
                try (Producer<String, String> warm = onKmeta
                        ? KmetaProducer.create(p, new StringSerializer(), new StringSerializer())
                        : new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
                    warm.send(new ProducerRecord<>(input, "warm", "warm")).get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException("prewarm: " + e, e);
                }
            }
        }

        /** Item 1: Metadata requests per kind of client before, during and after a partition leader move. */
        void leaderMove() throws Exception {
            cluster.createTopic(input, PARTITIONS, replication);
            Path state = Files.createTempDirectory("streams-lifecycle");
            try (Feeder feed = new Feeder(cluster, input, Args.intOpt(opts, "rate"))) {
                KafkaStreams streams = startRunning(state);
                feed.start();
                TimeUnit.SECONDS.sleep(Args.intOpt(opts, "settle-s"));
                int steadyS = Args.intOpt(opts, "steady-s");
                reset();
                TimeUnit.SECONDS.sleep(steadyS);
                Map<String, Long> steady = StreamsMetadataHarness.perMinute(byKind(), steadyS);
                reset();
                long moveStart = System.nanoTime();
                int moved = moveLeadersOff(0);
                long moveMs = (System.nanoTime() - moveStart) / 1_000_000;
                TimeUnit.MILLISECONDS.sleep(Math.max(0, 10_000 - moveMs));
                Map<String, Long> during = byKind();
                reset();
                TimeUnit.SECONDS.sleep(steadyS);
                Map<String, Long> after = StreamsMetadataHarness.perMinute(byKind(), steadyS);
                String state1 = streams.state().toString();
                streams.close(Duration.ofSeconds(30));
                System.out.printf(Locale.ROOT, "%s: steady per minute %s; leader move (%d partitions off broker 0, "
                                + "%d ms) and its first 10 s %s; the next %d s, per minute %s; feeder failures %d; "
                                + "state %s; load %s%n", name, steady, moved, moveMs, during, steadyS, after,
                        feed.failed.get(), state1, Args.load());
            }
        }

        /** Item 4: a zombie fences one thread's producer; the replacement's first acknowledged send. */
        void fence() throws Exception {
            cluster.createTopic(input, PARTITIONS, replication);
            Path state = Files.createTempDirectory("streams-lifecycle");
            try (Feeder feed = new Feeder(cluster, input, Args.intOpt(opts, "rate"))) {
                FirstAck.clear();
                FirstAck.snapshot = this::byKind;
                KafkaStreams streams = startRunning(state);
                feed.start();
                TimeUnit.SECONDS.sleep(Args.intOpt(opts, "settle-s"));
                int fences = Args.intOpt(opts, "fences");
                for (int f = 1; f <= fences; f++) {
                    FirstAck victim = FirstAck.ALL.stream().filter(a -> a.transactionalId != null
                                    && a.transactionalId.startsWith(applicationId + "-") && a.firstAckNs != 0)
                            .reduce((a, b) -> b).orElseThrow(() -> new IllegalStateException(name
                                    + ": no producer acknowledged a send: " + FirstAck.ALL));
                    int producersBefore = FirstAck.ALL.size();
                    Set<String> idsBefore = new HashSet<>();
                    FirstAck.ALL.forEach(a -> idsBefore.add(a.transactionalId));
                    Map<String, Long> atFence = byKind();
                    long fenceNs = System.nanoTime();
                    try (KafkaProducer<String, String> zombie = zombie(victim.transactionalId)) {
                        zombie.initTransactions(); // bumps the epoch: the stream thread's producer is fenced
                    }
                    long fencedNs = System.nanoTime();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                    FirstAck replacement = null;
                    while (System.nanoTime() < deadline) {
                        // the fenced thread's new producer; or, where Streams replaced the thread instead, the new
                        // thread's (a transactional.id not seen before)
                        replacement = FirstAck.ALL.subList(producersBefore, FirstAck.ALL.size()).stream()
                                .filter(a -> (victim.transactionalId.equals(a.transactionalId)
                                        || !idsBefore.contains(a.transactionalId)) && a.firstAckNs != 0)
                                .findFirst().orElse(null);
                        if (replacement != null) {
                            break;
                        }
                        TimeUnit.MILLISECONDS.sleep(10);
                    }
                    if (replacement == null) {
                        System.out.printf(Locale.ROOT, "%s fence %d: no replacement of %s acknowledged a send in "
                                + "90 s; producers made %s; state %s%n", name, f, victim.transactionalId,
                                FirstAck.ALL.subList(producersBefore, FirstAck.ALL.size()), streams.state());
                        break;
                    }
                    TimeUnit.SECONDS.sleep(5);
                    Map<String, Long> in5s = byKind();
                    System.out.printf(Locale.ROOT, "%s fence %d (%s, %s%s): zombie's initTransactions %d ms; fence to "
                                    + "the replacement's construction %d ms; construction to its first acknowledged "
                                    + "send %d ms (to its first send() %d ms); producers' Metadata requests in between %d %s (from the fence "
                                    + "to the construction %s; in the 5 s after the first ack %s); producers made "
                                    + "since the fence %d; load %s%n", name, f, victim.transactionalId,
                            victim.clientId, victim.transactionalId.equals(replacement.transactionalId) ? ""
                                    : "; Streams replaced the thread: its new producer " + replacement,
                            (fencedNs - fenceNs) / 1_000_000,
                            (replacement.constructedNs - fenceNs) / 1_000_000,
                            (replacement.firstAckNs - replacement.constructedNs) / 1_000_000,
                            (replacement.firstSendNs - replacement.constructedNs) / 1_000_000,
                            diff(replacement.atConstruction, replacement.atFirstAck).getOrDefault("producer", 0L),
                            diff(replacement.atConstruction, replacement.atFirstAck),
                            diff(atFence, replacement.atConstruction), diff(replacement.atFirstAck, in5s),
                            FirstAck.ALL.size() - producersBefore, Args.load());
                    TimeUnit.SECONDS.sleep(5);
                }
                streams.close(Duration.ofSeconds(30));
            } finally {
                FirstAck.snapshot = null;
            }
        }

        private KafkaProducer<String, String> zombie(String transactionalId) {
            Map<String, Object> p = new HashMap<>();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.proxiedBootstrapServers());
            p.put(ProducerConfig.CLIENT_ID_CONFIG, ZOMBIE);
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
            return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
        }

        private KafkaStreams startRunning(Path state) throws InterruptedException {
            KafkaStreams streams = new KafkaStreams(topology(), streamsProps(state));
            CountDownLatch running = running(streams);
            streams.start();
            if (!running.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + ": not RUNNING after 120 s but " + streams.state());
            }
            return streams;
        }

        private CountDownLatch running(KafkaStreams streams) {
            streams.setUncaughtExceptionHandler(e ->
                    StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD);
            CountDownLatch running = new CountDownLatch(1);
            streams.setStateListener((now, before) -> {
                if (now == KafkaStreams.State.RUNNING) {
                    running.countDown();
                }
            });
            return running;
        }

        /**
         * Moves the leader of every partition of the application's topics that {@code brokerId} leads to the next
         * replica: the replica list reordered (a reassignment that moves no data), then a preferred election.
         */
        private int moveLeadersOff(int brokerId) throws Exception {
            Admin admin = cluster.admin();
            Set<String> topics = new HashSet<>();
            for (String t : admin.listTopics().names().get(30, TimeUnit.SECONDS)) {
                if (t.equals(input) || t.equals("out-" + name) || t.startsWith(applicationId + "-")) {
                    topics.add(t);
                }
            }
            Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new HashMap<>();
            for (TopicDescription d : admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS)
                    .values()) {
                for (TopicPartitionInfo p : d.partitions()) {
                    if (p.leader() != null && p.leader().id() == brokerId && p.replicas().size() > 1) {
                        List<Integer> replicas = new ArrayList<>();
                        p.replicas().forEach(n -> replicas.add(n.id()));
                        replicas.remove(Integer.valueOf(brokerId));
                        replicas.add(brokerId);
                        moves.put(new TopicPartition(d.name(), p.partition()),
                                Optional.of(new NewPartitionReassignment(replicas)));
                    }
                }
            }
            admin.alterPartitionReassignments(moves).all().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!admin.listPartitionReassignments(moves.keySet()).reassignments().get(30, TimeUnit.SECONDS)
                    .isEmpty() && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
            admin.electLeaders(ElectionType.PREFERRED, moves.keySet()).partitions().get(30, TimeUnit.SECONDS);
            return moves.size();
        }

        /** {@link StreamsTopology}'s application on this run's input, its output topic made first. */
        private Topology topology() {
            cluster.createTopic("out-" + name, PARTITIONS, replication);
            return StreamsTopology.build(input, name);
        }

        private Properties streamsProps(Path state) {
            Properties p = new Properties();
            p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
            p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.proxiedBootstrapServers());
            p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Args.intOpt(opts, "threads"));
            p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
            p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, replication);
            p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
            p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
            if (FirstAck.snapshot != null) { // fence mode only: the heap measured elsewhere holds none
                p.put(StreamsConfig.producerPrefix(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG),
                        FirstAck.class.getName());
            }
            if (eos) {
                p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
            }
            if (kmeta) {
                p.put(StreamsConfig.DEFAULT_CLIENT_SUPPLIER_CONFIG, KmetaClientSupplier.class);
            }
            return p;
        }

        private void reset() {
            for (int id : cluster.brokerIds()) {
                cluster.proxy(id).resetCounters();
            }
        }

        /** Requests of {@code apiKey} since the last reset, every client but the feeder's and the zombie's. */
        private long requests(short apiKey) {
            long n = 0;
            for (int id : cluster.brokerIds()) {
                for (Map.Entry<String, Long> e : cluster.proxy(id).requestCountsByClient(apiKey).entrySet()) {
                    if (!e.getKey().equals(FEEDER) && !e.getKey().equals(ZOMBIE)) {
                        n += e.getValue();
                    }
                }
            }
            return n;
        }

        /** Metadata requests since the last reset, per kind of client ("all": every kind but feeder and zombie). */
        private Map<String, Long> byKind() {
            return StreamsMetadataHarness.metadataRequestsByKind(cluster, Set.of(ZOMBIE));
        }
    }

    /**
     * The supplier Streams would use (its default one, or kmeta's), timing each kind of client it builds: in startup
     * mode it is given to the {@code KafkaStreams} constructor, the same clients as {@code default.client.supplier}.
     */
    private static final class TimedSupplier implements KafkaClientSupplier {
        private final KafkaClientSupplier delegate;
        private final Map<String, long[]> ms = new ConcurrentSkipListMap<>(); // kind -> {count, total, max}

        TimedSupplier(KafkaClientSupplier delegate) {
            this.delegate = delegate;
        }

        private <T> T timed(String kind, Supplier<T> make) {
            long t = System.nanoTime();
            T client = make.get();
            long took = (System.nanoTime() - t) / 1_000_000;
            ms.compute(kind, (k, v) -> v == null ? new long[] {1, took, took}
                    : new long[] {v[0] + 1, v[1] + took, Math.max(v[2], took)});
            return client;
        }

        @Override
        public Admin getAdmin(Map<String, Object> config) {
            return timed("admin", () -> delegate.getAdmin(config));
        }

        @Override
        public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
            return timed("producer", () -> delegate.getProducer(config));
        }

        @Override
        public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
            return timed("consumer", () -> delegate.getConsumer(config));
        }

        @Override
        public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
            return timed("restore", () -> delegate.getRestoreConsumer(config));
        }

        @Override
        public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
            return timed("global", () -> delegate.getGlobalConsumer(config));
        }

        /** Per kind: how many built, in how many ms together, the slowest. */
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            ms.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ").append(v[0]).append(' ').append(k)
                    .append(' ').append(v[1]).append(" ms (slowest ").append(v[2]).append(')'));
            return sb.toString();
        }
    }

    /** The stock producer that feeds the input at a fixed rate once started; counts failed sends. */
    private static final class Feeder implements AutoCloseable {
        private final KafkaProducer<String, String> producer;
        private final ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
        private final String topic;
        private final int rate;
        private final AtomicInteger failed = new AtomicInteger();

        Feeder(KafkaCluster cluster, String topic, int rate) {
            Map<String, Object> p = new HashMap<>();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.proxiedBootstrapServers());
            p.put(ProducerConfig.CLIENT_ID_CONFIG, FEEDER);
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            this.producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
            this.topic = topic;
            this.rate = rate;
        }

        void start() {
            int[] n = {0};
            pacer.scheduleAtFixedRate(() -> producer.send(new ProducerRecord<>(topic, "k" + (n[0] % 1000),
                    "v" + (n[0]++ % 97)), (md, e) -> {
                        if (e != null) {
                            failed.incrementAndGet();
                        }
                    }), 0, Math.max(1, 1_000_000L / rate), TimeUnit.MICROSECONDS);
        }

        @Override
        public void close() {
            pacer.shutdownNow();
            try {
                pacer.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            producer.close(Duration.ofSeconds(10));
        }
    }

    /**
     * Installed on every Streams producer ({@code producer.interceptor.classes}): when the producer was built, when it
     * first had a send acknowledged, and the Metadata requests counted at both moments.
     */
    public static final class FirstAck implements ProducerInterceptor<Object, Object> {
        static final List<FirstAck> ALL = new CopyOnWriteArrayList<>();
        static volatile Supplier<Map<String, Long>> snapshot;
        private static final Map<String, Long> NONE = Collections.emptyMap();

        final long constructedNs = System.nanoTime();
        volatile String transactionalId;
        volatile String clientId;
        volatile Map<String, Long> atConstruction = NONE;
        volatile long firstSendNs;
        volatile long firstAckNs;
        volatile Map<String, Long> atFirstAck = NONE;

        /** Kafka makes it by this constructor. */
        public FirstAck() {
        }

        static void clear() {
            ALL.clear();
        }

        @Override
        public void configure(Map<String, ?> configs) {
            Object tid = configs.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
            transactionalId = tid == null ? null : tid.toString();
            Object cid = configs.get(ProducerConfig.CLIENT_ID_CONFIG);
            clientId = cid == null ? null : cid.toString();
            Supplier<Map<String, Long>> s = snapshot;
            atConstruction = s == null ? NONE : s.get();
            ALL.add(this);
        }

        @Override
        public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
            if (firstSendNs == 0) {
                firstSendNs = System.nanoTime(); // before KafkaProducer.doSend waits for the topic's metadata
            }
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
            if (exception == null && firstAckNs == 0) {
                synchronized (this) {
                    if (firstAckNs == 0) {
                        Supplier<Map<String, Long>> s = snapshot;
                        atFirstAck = s == null ? NONE : s.get();
                        firstAckNs = System.nanoTime();
                    }
                }
            }
        }

        @Override
        public void close() {
        }

        @Override
        public String toString() {
            return clientId + "/" + transactionalId + (firstAckNs == 0 ? " (no ack)" : " (acked)");
        }
    }

    /**
     * Samples the stream threads' stacks every 10 ms until stopped: how often each (state, first frame in Kafka's or
     * kmeta's code) was seen - where start-up waits.
     */
    private static final class StackSampler {
        private final Map<String, Integer> seen = new ConcurrentHashMap<>();
        private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

        StackSampler() {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            timer.scheduleAtFixedRate(() -> {
                for (ThreadInfo t : threads.dumpAllThreads(false, false, 40)) {
                    if (!t.getThreadName().contains("StreamThread")) {
                        continue;
                    }
                    String frame = "?";
                    for (StackTraceElement e : t.getStackTrace()) {
                        if (e.getClassName().startsWith("org.apache.kafka") || e.getClassName().startsWith("dev.kmeta")) {
                            frame = e.getClassName().substring(e.getClassName().lastIndexOf('.') + 1) + "."
                                    + e.getMethodName();
                            break;
                        }
                    }
                    seen.merge(t.getThreadState() + " " + frame, 1, Integer::sum);
                }
            }, 0, 10, TimeUnit.MILLISECONDS);
        }

        String stop(int top) {
            timer.shutdownNow();
            StringBuilder sb = new StringBuilder();
            seen.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(top)
                    .forEach(e -> sb.append(sb.length() == 0 ? "" : ", ").append(e.getKey()).append('=')
                            .append(e.getValue()));
            return sb.toString();
        }
    }

    /** Every live thread's CPU time, by thread id, in ns. */
    static Map<Long, Long> threadCpu() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<Long, Long> cpu = new HashMap<>();
        for (long id : threads.getAllThreadIds()) {
            long ns = threads.getThreadCpuTime(id);
            if (ns >= 0) {
                cpu.put(id, ns);
            }
        }
        return cpu;
    }

    /**
     * CPU time since {@code before}, in ms, of the threads alive now, by kind: kmeta's metadata thread, the
     * producers' network threads, the stream threads (their consumers poll there), the rest (main, the consumers'
     * and admin's threads, JIT and GC are not threads here).
     */
    static Map<String, Long> cpuByThreadKind(Map<Long, Long> before) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<String, Long> kinds = new TreeMap<>();
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t == null) {
                continue;
            }
            long ns = threads.getThreadCpuTime(t.getThreadId());
            if (ns < 0) {
                continue;
            }
            String name = t.getThreadName();
            String kind = name.startsWith("kmeta-") ? "kmeta" : name.startsWith("kafka-producer-network-thread")
                    ? "producer-io" : name.contains("StreamThread") ? "stream-threads"
                    : name.contains(FEEDER) ? "feeder" : "other";
            kinds.merge(kind, (ns - before.getOrDefault(t.getThreadId(), 0L)) / 1_000_000, Long::sum);
        }
        return kinds;
    }

    /** Classes loaded so far, the JIT compilers' time and the collectors' time so far (ms). */
    static long[] jvmWork() {
        long gc = 0;
        for (var g : ManagementFactory.getGarbageCollectorMXBeans()) {
            gc += Math.max(0, g.getCollectionTime());
        }
        return new long[] {ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount(),
                ManagementFactory.getCompilationMXBean().getTotalCompilationTime(), gc};
    }

    /** The process's CPU time (every thread, JIT and GC included), in ns. */
    static long processCpuNs() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Used heap after a full GC (three, until it stops shrinking), in bytes. */
    static long usedAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            ManagementFactory.getMemoryMXBean().gc();
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** The JVM's class histogram (it runs a full GC first), bytes per group of classes. */
    static Map<String, Long> histogram() throws Exception {
        return groups(classes());
    }

    /** Bytes per group of classes, from bytes per class. */
    private static Map<String, Long> groups(Map<String, Long> classes) {
        Map<String, Long> groups = new TreeMap<>();
        classes.forEach((c, bytes) -> groups.merge(group(c), bytes, Long::sum));
        return groups;
    }

    /** The JVM's class histogram ({@link RetainedHeap#histogram}, a full GC first), bytes per class. */
    static Map<String, Long> classes() throws Exception {
        Map<String, Long> classes = new HashMap<>();
        RetainedHeap.histogram().forEach((c, counts) -> classes.put(c, counts[1]));
        return classes;
    }

    /** The {@code n} classes that grew most from {@code before} to {@code after}, in KB. */
    private static String top(Map<String, Long> before, Map<String, Long> after, int n) {
        StringBuilder sb = new StringBuilder();
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(n)
                .forEach(e -> sb.append(sb.length() == 0 ? "" : ", ").append(e.getKey()).append('=')
                        .append(e.getValue() / 1024));
        return sb.toString();
    }

    private static String group(String className) {
        if (className.startsWith("dev.kmeta.testkit.")) {
            return "testkit";
        }
        if (className.startsWith("dev.kmeta.")) {
            return "kmeta";
        }
        if (className.startsWith("org.apache.kafka.clients.") || className.startsWith("org.apache.kafka.common.")) {
            return "kafka-clients";
        }
        if (className.startsWith("org.apache.kafka.streams.")) {
            return "streams";
        }
        if (className.equals("[B")) {
            return "byte[]";
        }
        if (className.startsWith("java.nio.")) {
            return "nio";
        }
        return "other";
    }

    /** after - before per group, in KB, with the total. */
    private static Map<String, Long> diffKb(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new TreeMap<>();
        long total = 0;
        Set<String> keys = new HashSet<>(before.keySet());
        keys.addAll(after.keySet());
        for (String k : keys) {
            long v = after.getOrDefault(k, 0L) - before.getOrDefault(k, 0L);
            d.put(k, v / 1024);
            total += v;
        }
        d.put("total", total / 1024);
        return d;
    }

    private static Map<String, Long> diff(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new TreeMap<>();
        after.forEach((k, v) -> {
            long x = v - before.getOrDefault(k, 0L);
            if (x != 0) {
                d.put(k, x);
            }
        });
        return d;
    }
}
