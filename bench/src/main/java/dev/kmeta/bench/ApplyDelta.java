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
 * A JMH benchmark of deriving the next {@link Cluster} snapshot: applying a metadata delta that changes one topic to
 * a big snapshot ({@link #applyOneTopic}), against building the whole snapshot from scratch ({@link #fullBuild}).
 * The design promise is that the first costs in proportion to what changed, not to the cluster.
 *
 * <p>The cluster: {@code partitions / 100} topics of 100 partitions, replication factor 3 over 6 brokers, every
 * topic with a topic id, named either {@code hashed} (random, like most real names) or {@code numbered}
 * ({@code orders-00000}, ...). Each delta carries what a metadata response carries: the broker list (fresh,
 * equal {@link Node}s), the cluster id and the controller. The one-topic deltas move all 100 leaders of one topic to
 * the next replica with epoch + 1; a pool of {@value #DELTA_POOL} such deltas, each for another topic, is cycled so
 * that no single topic stays hot. The full delta holds fresh copies of every topic, not the snapshot's objects.
 * Both benchmarks start from pre-built {@link TopicMetadata}: parsing a response is not measured.
 *
 * <p>Run from the repository root, after {@code ./mvnw -B verify} (about 3.5 minutes on 2 cores):
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar ApplyDelta -prof gc -rf json -rff bench/results/apply-delta.json
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

    /** Total partitions in the cluster. */
    @Param({"10000", "100000", "1000000"})
    int partitions;

    /** Topic name style: {@code hashed} or {@code numbered}. */
    @Param({"hashed", "numbered"})
    String names;

    /** The big snapshot the one-topic deltas are applied to. */
    Cluster snapshot;
    /** Every topic as fresh objects, with nodes, cluster id and controller. */
    ClusterDelta fullDelta;
    /** Deltas that each change one topic, for distinct topics. */
    ClusterDelta[] oneTopicDeltas;
    /** The topic each of {@link #oneTopicDeltas} changes. */
    String[] changedTopics;
    private int next;

    /** Builds the snapshot and the deltas; not measured. */
    @Setup(Level.Trial)
    public void setUp() {
        int topics = partitions / PARTITIONS_PER_TOPIC;
        if (topics * PARTITIONS_PER_TOPIC != partitions || topics == 0) {
            throw new IllegalArgumentException("partitions must be a positive multiple of " + PARTITIONS_PER_TOPIC
                    + ": " + partitions);
        }
        String[] topicNames = topicNames(names, topics);
        UUID[] ids = topicIds(topics);
        snapshot = Cluster.empty().apply(full(topicNames, ids));
        fullDelta = full(topicNames, ids);
        int pool = Math.min(DELTA_POOL, topics);
        oneTopicDeltas = new ClusterDelta[DELTA_POOL];
        changedTopics = new String[DELTA_POOL];
        for (int i = 0; i < DELTA_POOL; i++) {
            int t = (i % pool) * topics / pool;
            changedTopics[i] = topicNames[t];
            oneTopicDeltas[i] = withBrokerInfo(ClusterDelta.builder())
                    .putTopic(topic(topicNames[t], ids[t], t, 1, 6)).build();
        }
        next = 0;
    }

    /** Applies a delta that changes one topic (100 partitions) to the big snapshot. */
    @Benchmark
    public Cluster applyOneTopic() {
        ClusterDelta delta = oneTopicDeltas[next];
        next = (next + 1) & (DELTA_POOL - 1);
        return snapshot.apply(delta);
    }

    /** Builds the whole snapshot from scratch: one delta with every topic, applied to the empty snapshot. */
    @Benchmark
    public Cluster fullBuild() {
        return Cluster.empty().apply(fullDelta);
    }

    private static ClusterDelta full(String[] topicNames, UUID[] ids) {
        ClusterDelta.Builder b = withBrokerInfo(ClusterDelta.builder());
        for (int t = 0; t < topicNames.length; t++) {
            b.putTopic(topic(topicNames[t], ids[t], t, 0, 5));
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
     * Topic {@code t}: partition {@code p} has replicas {@code r, r+1, r+2} (mod brokers) with {@code r = t + p},
     * all in sync, and is led by replica {@code leaderReplica} with epoch {@code epoch}.
     */
    static TopicMetadata topic(String name, UUID id, int t, int leaderReplica, int epoch) {
        List<PartitionMetadata> parts = new ArrayList<>(PARTITIONS_PER_TOPIC);
        for (int p = 0; p < PARTITIONS_PER_TOPIC; p++) {
            int[] replicas = new int[REPLICATION_FACTOR];
            for (int r = 0; r < REPLICATION_FACTOR; r++) {
                replicas[r] = (t + p + r) % BROKERS;
            }
            parts.add(new PartitionMetadata(name, p, replicas[leaderReplica], epoch, replicas, replicas, null,
                    PartitionMetadata.NONE));
        }
        return TopicMetadata.of(name, id, false, PartitionMetadata.NONE, parts);
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

    private static UUID[] topicIds(int topics) {
        Random random = new Random(7);
        UUID[] ids = new UUID[topics];
        for (int t = 0; t < topics; t++) {
            ids[t] = new UUID(random.nextLong(), random.nextLong());
        }
        return ids;
    }
}
