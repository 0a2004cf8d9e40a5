package dev.kmeta.bench;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A JMH benchmark of deriving the next {@link Cluster} snapshot: a metadata response that changes one topic,
 * applied to a big snapshot ({@link #oneTopicChange}), against building the whole snapshot from scratch
 * ({@link #fullBuild}). The design promise is that the first costs in proportion to what changed, not to the cluster.
 *
 * <p>The cluster: {@code partitions / 100} topics of 100 partitions, replication factor 3 over 6 brokers, every
 * topic with a topic id, named either {@code hashed} (random, like most real names) or {@code numbered}
 * ({@code orders-00000}, ...). Each delta carries what a metadata response carries: the broker list (fresh,
 * equal {@link Node}s), the cluster id and the controller. The one-topic changes move all 100 leaders of one topic to
 * the next replica with epoch + 1; a pool of {@value #DELTA_POOL} of them, each for another topic, is cycled so
 * that no single topic stays hot.
 *
 * <p>Two pairs of benchmarks:
 * <ul>
 *   <li>{@link #fullBuild} and {@link #oneTopicChange} start from what a wire decoder hands over: per partition a
 *   leader id, an epoch and a replica array ({@link RawTopic}, made in setup). Inside the measured method they build
 *   every {@link PartitionMetadata} and {@link TopicMetadata} (all of them, or the one changed topic), the delta with
 *   its nodes, and apply it. This is the honest comparison: a full refresh builds every partition.</li>
 *   <li>{@link #fullBuildPrebuilt} and {@link #oneTopicChangePrebuilt} apply deltas of {@link TopicMetadata} built in
 *   setup, so they measure {@link Cluster#apply} alone. They are the benchmarks of the first run
 *   ({@code fullBuild} and {@code applyOneTopic} then), kept for comparison.</li>
 * </ul>
 * Decoding bytes (names, ids, arrays) is measured by neither.
 *
 * <p>Run from the repository root, after {@code ./mvnw -B verify} (about 8.5 minutes on 2 shared cores with the 1M
 * cluster, which the default run of every benchmark leaves out to stay within 15 minutes):
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar ApplyDelta -p partitions=10000,100000,1000000 -prof gc -rf json \
 *     -rff bench/results/apply-delta.json
 * }</pre>
 *
 * <p>Thread-safety: a {@link Scope#Thread} state; JMH gives each benchmark thread its own instance.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@State(Scope.Thread)
public class ApplyDelta {
    static final int PARTITIONS_PER_TOPIC = 100;
    static final int REPLICATION_FACTOR = 3;
    static final int BROKERS = 6;
    /** The number of distinct one-topic deltas cycled through; a power of two. */
    static final int DELTA_POOL = 64;
    static final String CLUSTER_ID = "kmeta-bench-cluster";

    /**
     * Total partitions in the cluster. 1M is not in the default set (a full build there takes 0.1-0.5 s and 123 MB
     * per operation, 5 of this class's 8.5 minutes): add it with {@code -p partitions=10000,100000,1000000}.
     */
    @Param({"10000", "100000"})
    int partitions;

    /** Topic name style: {@code hashed} or {@code numbered}. */
    @Param({"hashed", "numbered"})
    String names;

    /** The big snapshot the one-topic changes are applied to. */
    Cluster snapshot;
    /** Every topic as decoder output. */
    RawTopic[] rawTopics;
    /** The changed topics of the one-topic changes, as decoder output, for distinct topics. */
    RawTopic[] rawChanges;
    /** Every topic as fresh built objects, with nodes, cluster id and controller. */
    ClusterDelta fullDelta;
    /** Built deltas that each change one topic: {@link #rawChanges}, built. */
    ClusterDelta[] oneTopicDeltas;
    /** The topic each of {@link #rawChanges} and {@link #oneTopicDeltas} changes. */
    String[] changedTopics;
    private int next;

    /** Builds the snapshot, the decoder output and the prebuilt deltas; not measured. */
    @Setup(Level.Trial)
    public void setUp() {
        int topics = partitions / PARTITIONS_PER_TOPIC;
        if (topics * PARTITIONS_PER_TOPIC != partitions || topics == 0) {
            throw new IllegalArgumentException("partitions must be a positive multiple of " + PARTITIONS_PER_TOPIC
                    + ": " + partitions);
        }
        String[] topicNames = topicNames(names, topics);
        UUID[] ids = topicIds(topics);
        rawTopics = new RawTopic[topics];
        for (int t = 0; t < topics; t++) {
            rawTopics[t] = RawTopic.of(topicNames[t], ids[t], t, 0, 5);
        }
        snapshot = Cluster.empty().apply(full(rawTopics));
        fullDelta = full(rawTopics);
        int pool = Math.min(DELTA_POOL, topics);
        rawChanges = new RawTopic[DELTA_POOL];
        oneTopicDeltas = new ClusterDelta[DELTA_POOL];
        changedTopics = new String[DELTA_POOL];
        for (int i = 0; i < DELTA_POOL; i++) {
            int t = (i % pool) * topics / pool;
            changedTopics[i] = topicNames[t];
            rawChanges[i] = RawTopic.of(topicNames[t], ids[t], t, 1, 6);
            oneTopicDeltas[i] = oneTopic(rawChanges[i]);
        }
        next = 0;
    }

    /**
     * A metadata response that changes one topic (100 partitions): builds its partitions, the topic and the delta
     * (with nodes, cluster id, controller), and applies it to the big snapshot.
     */
    @Benchmark
    public Cluster oneTopicChange() {
        RawTopic change = rawChanges[next];
        next = (next + 1) & (DELTA_POOL - 1);
        return snapshot.apply(oneTopic(change));
    }

    /** A full refresh: builds every partition, every topic and the delta, and applies it to the empty snapshot. */
    @Benchmark
    public Cluster fullBuild() {
        return Cluster.empty().apply(full(rawTopics));
    }

    /** {@link Cluster#apply} alone: a prebuilt one-topic delta applied to the big snapshot. */
    @Benchmark
    public Cluster oneTopicChangePrebuilt() {
        ClusterDelta delta = oneTopicDeltas[next];
        next = (next + 1) & (DELTA_POOL - 1);
        return snapshot.apply(delta);
    }

    /** {@link Cluster#apply} alone: a prebuilt delta of every topic applied to the empty snapshot. */
    @Benchmark
    public Cluster fullBuildPrebuilt() {
        return Cluster.empty().apply(fullDelta);
    }

    private static ClusterDelta oneTopic(RawTopic change) {
        return withBrokerInfo(ClusterDelta.builder()).putTopic(change.build()).build();
    }

    private static ClusterDelta full(RawTopic[] topics) {
        ClusterDelta.Builder b = withBrokerInfo(ClusterDelta.builder());
        for (RawTopic t : topics) {
            b.putTopic(t.build());
        }
        return b.build();
    }

    private static ClusterDelta.Builder withBrokerInfo(ClusterDelta.Builder b) {
        List<Node> nodes = new ArrayList<>(BROKERS);
        for (int id = 0; id < BROKERS; id++) {
            nodes.add(new Node(id, "broker-" + id + ".kafka.internal", 9092, "rack-" + (id % 3)));
        }
        return b.nodes(nodes).clusterId(CLUSTER_ID).controllerId(0);
    }

    /**
     * One topic as a wire decoder hands it over: name, id, and per partition the leader id, the leader epoch and
     * the replica ids (also the in-sync replicas). Immutable by convention; thread-confined to its benchmark state.
     */
    static final class RawTopic {
        final String name;
        final UUID id;
        final int[] leaders;
        final int[] epochs;
        final int[][] replicas;

        private RawTopic(String name, UUID id, int[] leaders, int[] epochs, int[][] replicas) {
            this.name = name;
            this.id = id;
            this.leaders = leaders;
            this.epochs = epochs;
            this.replicas = replicas;
        }

        /**
         * Topic {@code t}: partition {@code p} has replicas {@code r, r+1, r+2} (mod brokers) with {@code r = t + p},
         * all in sync, and is led by replica {@code leaderReplica} with epoch {@code epoch}.
         */
        static RawTopic of(String name, UUID id, int t, int leaderReplica, int epoch) {
            int[] leaders = new int[PARTITIONS_PER_TOPIC];
            int[] epochs = new int[PARTITIONS_PER_TOPIC];
            int[][] replicas = new int[PARTITIONS_PER_TOPIC][REPLICATION_FACTOR];
            for (int p = 0; p < PARTITIONS_PER_TOPIC; p++) {
                for (int r = 0; r < REPLICATION_FACTOR; r++) {
                    replicas[p][r] = (t + p + r) % BROKERS;
                }
                leaders[p] = replicas[p][leaderReplica];
                epochs[p] = epoch;
            }
            return new RawTopic(name, id, leaders, epochs, replicas);
        }

        /** Builds the topic: every partition (copying its arrays, as the model does), then the topic. */
        TopicMetadata build() {
            List<PartitionMetadata> parts = new ArrayList<>(leaders.length);
            for (int p = 0; p < leaders.length; p++) {
                parts.add(new PartitionMetadata(name, p, leaders[p], epochs[p], replicas[p], replicas[p], null,
                        PartitionMetadata.NONE));
            }
            return TopicMetadata.of(name, id, false, PartitionMetadata.NONE, parts);
        }
    }

    static String[] topicNames(String style, int topics) {
        String[] out = new String[topics];
        Random random = new Random(42);
        for (int t = 0; t < topics; t++) {
            switch (style) {
                case "numbered":
                    out[t] = String.format(Locale.ROOT, "orders-%05d", t);
                    break;
                case "hashed":
                    out[t] = "topic-" + Long.toHexString(random.nextLong());
                    break;
                default:
                    throw new IllegalArgumentException("names must be hashed or numbered: " + style);
            }
        }
        return out;
    }

    static UUID[] topicIds(int topics) {
        Random random = new Random(7);
        UUID[] ids = new UUID[topics];
        for (int t = 0; t < topics; t++) {
            ids[t] = new UUID(random.nextLong(), random.nextLong());
        }
        return ids;
    }
}
