package dev.kmeta.bench;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.metadata.internal.RefreshRequest;
import dev.kmeta.sender.internal.ResponseTranslator;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataResponse;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import java.time.Duration;

/**
 * P2, side by side: the send path's lookup latency while another thread applies full 100k-partition responses
 * nonstop (1,000 topics x 100, 6 brokers, RF 3, see {@link Wire}). One JMH group of two threads ({@code SampleTime}):
 * <ul>
 *   <li>{@link #lookup}: one send's metadata work, as in {@link SendPathLookup} (kafka-clients: clock read,
 *       {@code fetch}, {@code invalidTopics().contains}, {@code add}, {@code partitionCountForTopic},
 *       {@code leaderFor(new TopicPartition)}; kmeta: {@code awaitTopic(topic, p, deadline)} then {@code leader}), on
 *       a (topic, partition) pair drawn at random in setup, names equal copies of the metadata's;</li>
 *   <li>{@link #update}: builds a fresh {@code MetadataResponseData} of all 1,000 topics (as the wire parser would)
 *       and applies it: kafka-clients {@code updateWithCurrentRequestVersion(response, false, now)}; kmeta the
 *       sender's round ({@code requestUpdate}, {@code poll}, {@code beginRefresh}, {@code onResponse} with
 *       {@code ResponseTranslator.translate}) on a manager whose clock the updater moves 2 s per round (so the
 *       refresh backoff never holds it back; a cache hit does not read the clock). With
 *       {@code updates=fresh-moving} every response is built anew and raises every leader epoch and moves every
 *       leader (the worst case for kmeta, whose unchanged partitions are otherwise kept as they are; the response's
 *       construction is garbage for both); with {@code updates=pooled-steady} every response wraps one of 4 data
 *       objects built in setup, all saying the same (a periodic refresh, the clients' own garbage only); with
 *       {@code updates=none} (not in the default run) the second thread only burns CPU and applies nothing: the
 *       machine's own floor for the lookup's tail, two busy threads on two cores and no metadata change; with
 *       {@code -p impl=floor} as well, the "lookup" only reads two arrays (no metadata client at all).</li>
 * </ul>
 * <b>GC share</b>: the forked JVM sums its {@code GarbageCollectorMXBean} collection times (G1 on Java 17: the
 * young, mixed and full collection pauses; concurrent marking is not counted) over the measurement iterations and
 * divides by their wall time, and prints one line per fork, {@code GC share: ...}, into JMH's output. With
 * {@code -prof gc} JMH also records {@code gc.time} per iteration in the JSON.
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar SendPathUnderUpdates -prof gc -rf json \
 *     -rff bench/results/send-path-under-updates.json | tee bench/results/send-path-under-updates.txt
 * }</pre>
 * About 3 minutes (8 forks). The floor (not in the default run):
 * {@code java -jar bench/target/benchmarks.jar SendPathUnderUpdates -p updates=none -p impl=floor,kmeta,kafka-clients}.
 * Equal work (the same answers per second for both, for the GC share): {@code -p updatesPerSec=2}.
 * Longer: {@code -f 3 -i 10} (tail percentiles need many samples);
 * {@code -p names=numbered} or {@code -p updates=pooled-steady} for one variant.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@State(Scope.Group)
public class SendPathUnderUpdates {
    static final int TOPICS = 1_000;
    static final int QUERIES = 1024;
    /** How far the updater moves the kmeta manager's clock per round: past any refresh backoff. */
    static final long ROUND_NS = TimeUnit.SECONDS.toNanos(2);

    @Param({Wire.IMPL_KMETA, Wire.IMPL_KAFKA})
    String impl;

    @Param({"hashed", "numbered"})
    String names;

    /**
     * {@code fresh-moving}: each response built anew, every leader moved (epoch + 1); {@code pooled-steady}: each
     * response a new {@code MetadataResponse} around one of {@value #POOL} equal data objects built in setup, every
     * response the same (a periodic refresh; only the clients' own allocation is left).
     */
    @Param({"fresh-moving", "pooled-steady"})
    String updates;

    /**
     * Answers applied per second, at most: 0 (the default) applies them nonstop, as fast as each client can (so the
     * faster client applies more and makes more garbage in the same time); {@code -p updatesPerSec=2} gives both the
     * same answers in the same time (each kafka-clients update takes about 0.3-0.5 s here), for the GC share of equal
     * work.
     */
    @Param({"0"})
    int updatesPerSec;
    long nextUpdateNs;

    static final String NONE = "none";
    /** {@code -p impl=floor} (with {@code updates=none}): a lookup that only reads two arrays, no metadata at all. */
    static final String FLOOR = "floor";
    static final int POOL = 4;
    MetadataResponseData[] pool;

    String[] topicNames;
    ProducerMetadata kafka;
    MetadataManager kmeta;
    final AtomicLong clockNs = new AtomicLong();
    int epoch;
    String[] queryTopics;
    int[] queryPartitions;
    Deadline deadline;
    int next;
    boolean idle;
    boolean floor;
    final GcShare gc = new GcShare();

    @Setup(Level.Trial)
    public void setUp() {
        floor = impl.equals(FLOOR);
        if (floor && !updates.equals(NONE)) {
            throw new IllegalArgumentException("impl=" + FLOOR + " goes with updates=" + NONE + " only");
        }
        if (!floor) {
            Wire.checkImpl(impl);
        }
        if (!updates.equals("fresh-moving") && !updates.equals("pooled-steady") && !updates.equals(NONE)) {
            throw new IllegalArgumentException("updates must be fresh-moving, pooled-steady or none: " + updates);
        }
        idle = updates.equals(NONE);
        topicNames = ApplyDelta.topicNames(names, TOPICS);
        if (updates.equals("pooled-steady")) {
            pool = new MetadataResponseData[POOL];
            for (int i = 0; i < POOL; i++) {
                pool[i] = Wire.data(topicNames, 0, TOPICS, 0);
            }
        }
        MetadataResponseData data = Wire.data(topicNames, 0, TOPICS, 0);
        if (Wire.IMPL_KAFKA.equals(impl)) {
            kafka = Wire.producerMetadata(topicNames, data);
        } else {
            // The updater moves this manager's clock: no topic may expire for idleness meanwhile (a lookup touches
            // only the topics it hits, and 1,024 queries miss some).
            kmeta = Wire.manager(topicNames, data, clockNs::get, Map.of("metadata.max.idle.ms", 1_000_000_000L));
        }
        Random random = new Random(17);
        queryTopics = new String[QUERIES];
        queryPartitions = new int[QUERIES];
        for (int i = 0; i < QUERIES; i++) {
            queryTopics[i] = new String(topicNames[random.nextInt(TOPICS)].toCharArray());
            queryPartitions[i] = random.nextInt(ApplyDelta.PARTITIONS_PER_TOPIC);
        }
        deadline = kmeta == null ? null : kmeta.newDeadline(Duration.ofSeconds(60)); // kmeta's side only
    }

    @Setup(Level.Iteration)
    public void iterationStart(IterationParams iteration) {
        gc.start(iteration.getType() == IterationType.MEASUREMENT);
    }

    @TearDown(Level.Iteration)
    public void iterationEnd() {
        gc.stop();
    }

    @TearDown(Level.Trial)
    public void report() {
        System.out.println(gc.line(impl, names, updates, epoch));
    }

    @Benchmark
    @Group("underUpdates")
    @GroupThreads(1)
    public long lookup() {
        int i = next++ & (QUERIES - 1);
        String topic = queryTopics[i];
        int p = queryPartitions[i];
        if (floor) {
            return topic.length() + p; // two array reads: what the machine does to any operation's tail
        }
        if (kafka != null) {
            long nowMs = System.currentTimeMillis();
            org.apache.kafka.common.Cluster c = kafka.fetch();
            if (c.invalidTopics().contains(topic)) {
                throw new IllegalStateException("invalid topic " + topic);
            }
            kafka.add(topic, nowMs);
            Integer count = c.partitionCountForTopic(topic);
            if (count == null || p >= count) {
                throw new IllegalStateException("miss: " + topic + "-" + p);
            }
            return c.leaderFor(new TopicPartition(topic, p)).id() + count;
        }
        Cluster c = kmeta.awaitTopic(topic, p, deadline);
        Node leader = c.leader(topic, p);
        return leader.id();
    }

    @Benchmark
    @Group("underUpdates")
    @GroupThreads(1)
    public Object update() throws InterruptedException {
        if (idle) {
            Blackhole.consumeCPU(1_000);
            return this;
        }
        if (updatesPerSec > 0) {
            paceUpdates();
        }
        MetadataResponse response = pool != null ? Wire.response(pool[epoch++ & (POOL - 1)])
                : Wire.response(Wire.data(topicNames, 0, TOPICS, ++epoch));
        if (kafka != null) {
            kafka.updateWithCurrentRequestVersion(response, false, System.currentTimeMillis());
            return kafka;
        }
        long nowMs = TimeUnit.NANOSECONDS.toMillis(clockNs.addAndGet(ROUND_NS));
        kmeta.requestUpdate();
        kmeta.poll(nowMs);
        RefreshRequest request = kmeta.beginRefresh(nowMs);
        if (request == null || request.topics().size() != TOPICS) {
            throw new IllegalStateException("no full refresh due: " + request);
        }
        kmeta.onResponse(request, ResponseTranslator.translate(response, kmeta.fetch()), nowMs);
        return kmeta;
    }

    /** Sleeps until this update's slot: {@code updatesPerSec} a second, as a cluster's answers come, not faster. */
    private void paceUpdates() throws InterruptedException {
        long intervalNs = TimeUnit.SECONDS.toNanos(1) / updatesPerSec;
        long now = System.nanoTime();
        if (nextUpdateNs == 0 || now - nextUpdateNs > intervalNs) {
            nextUpdateNs = now; // the first, or far behind (a slow update): no burst to catch up
        }
        long waitNs = nextUpdateNs - now;
        if (waitNs > 0) {
            TimeUnit.NANOSECONDS.sleep(waitNs);
        }
        nextUpdateNs += intervalNs;
    }

    /**
     * GC pause time over wall time, summed over the measurement iterations of one fork. One thread calls it (JMH's
     * iteration fixtures of a group state run on one of the group's threads).
     */
    static final class GcShare {
        private long gcMsAtStart;
        private long wallNsAtStart;
        private long countAtStart;
        private boolean measuring;
        long pauseMs;
        long wallNs;
        long collections;

        void start(boolean measurement) {
            measuring = measurement;
            gcMsAtStart = gcMs();
            countAtStart = gcCount();
            wallNsAtStart = System.nanoTime();
        }

        void stop() {
            if (measuring) {
                wallNs += System.nanoTime() - wallNsAtStart;
                pauseMs += gcMs() - gcMsAtStart;
                collections += gcCount() - countAtStart;
            }
        }

        double share() {
            return wallNs == 0 ? 0 : pauseMs * 1e6 / wallNs;
        }

        String line(String impl, String names, String updates, int rounds) {
            return String.format(Locale.ROOT, "GC share: impl=%s names=%s updates=%s gcPauseMs=%d wallMs=%d"
                            + " share=%.2f%% collections=%d (%d updates in all)", impl, names, updates, pauseMs,
                    wallNs / 1_000_000, 100 * share(), collections, rounds);
        }

        private static long gcMs() {
            long sum = 0;
            for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
                sum += Math.max(0, b.getCollectionTime());
            }
            return sum;
        }

        private static long gcCount() {
            long sum = 0;
            for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
                sum += Math.max(0, b.getCollectionCount());
            }
            return sum;
        }
    }
}
