package dev.kmeta.bench;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A JMH benchmark of the send-path lookups of a {@link Cluster} snapshot: what every {@code send()} asks ("which
 * partition, which leader?"), on the cluster of {@link ApplyDelta} (100 partitions per topic, 6 brokers).
 *
 * <p>Each invocation does {@value #QUERIES} lookups of (topic, partition) pairs drawn at random in setup, over every
 * topic, so the maps are walked all over, not one hot entry. The queried names are equal copies of the snapshot's
 * names, not the same objects, as in a producer (its topic strings are its own, the snapshot's come from the
 * decoder): a hit compares the strings. Results are folded into a returned checksum so nothing is skipped.
 * {@link #hashMapBaseline} does the topic lookup in a plain {@link HashMap} of the same topics, the reference the
 * snapshot's sharded maps are measured against. Run with {@code -prof gc}: every lookup must allocate 0 bytes.
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar SnapshotLookup -prof gc -rf json -rff bench/results/snapshot-lookup.json
 * }</pre>
 *
 * <p>Thread-safety: a {@link Scope#Thread} state; JMH gives each benchmark thread its own instance.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@State(Scope.Thread)
public class SnapshotLookup {
    /** Lookups per invocation; a power of two. */
    static final int QUERIES = 1024;

    /** Total partitions in the cluster. */
    @Param({"100000"})
    int partitions;

    /** Topic name style: {@code hashed} or {@code numbered}. */
    @Param({"hashed", "numbered"})
    String names;

    Cluster cluster;
    /** The same topics in a plain HashMap, for {@link #hashMapBaseline}. */
    Map<String, TopicMetadata> hashMap;
    /** The queried topic names: equal copies, not the snapshot's own strings. */
    String[] queryTopics;
    int[] queryPartitions;

    /** Builds the snapshot and the queries; not measured. */
    @Setup(Level.Trial)
    public void setUp() {
        int topics = partitions / ApplyDelta.PARTITIONS_PER_TOPIC;
        if (topics * ApplyDelta.PARTITIONS_PER_TOPIC != partitions || topics == 0) {
            throw new IllegalArgumentException("partitions must be a positive multiple of "
                    + ApplyDelta.PARTITIONS_PER_TOPIC + ": " + partitions);
        }
        String[] topicNames = ApplyDelta.topicNames(names, topics);
        UUID[] ids = ApplyDelta.topicIds(topics);
        ClusterDelta.Builder b = ClusterDelta.builder().nodes(nodes()).clusterId(ApplyDelta.CLUSTER_ID)
                .controllerId(0);
        hashMap = new HashMap<>();
        for (int t = 0; t < topics; t++) {
            TopicMetadata topic = ApplyDelta.RawTopic.of(topicNames[t], ids[t], t, 0, 5).build();
            b.putTopic(topic);
            hashMap.put(topic.name(), topic);
        }
        cluster = Cluster.empty().apply(b.build());
        Random random = new Random(11);
        queryTopics = new String[QUERIES];
        queryPartitions = new int[QUERIES];
        for (int i = 0; i < QUERIES; i++) {
            queryTopics[i] = new String(topicNames[random.nextInt(topics)].toCharArray());
            queryPartitions[i] = random.nextInt(ApplyDelta.PARTITIONS_PER_TOPIC);
        }
    }

    private static List<Node> nodes() {
        List<Node> nodes = new ArrayList<>(ApplyDelta.BROKERS);
        for (int id = 0; id < ApplyDelta.BROKERS; id++) {
            nodes.add(new Node(id, "broker-" + id + ".kafka.internal", 9092, "rack-" + (id % 3)));
        }
        return nodes;
    }

    /** {@code cluster.topic(name)}, then {@code partition(p)} on the topic. */
    @Benchmark
    @OperationsPerInvocation(QUERIES)
    public long topicThenPartition() {
        long sum = 0;
        for (int i = 0; i < QUERIES; i++) {
            sum += cluster.topic(queryTopics[i]).partition(queryPartitions[i]).leaderEpoch();
        }
        return sum;
    }

    /** {@code cluster.partition(name, p)}. */
    @Benchmark
    @OperationsPerInvocation(QUERIES)
    public long partition() {
        long sum = 0;
        for (int i = 0; i < QUERIES; i++) {
            PartitionMetadata p = cluster.partition(queryTopics[i], queryPartitions[i]);
            sum += p.leaderId();
        }
        return sum;
    }

    /** {@code cluster.leader(name, p)}: the topic, the partition, then the node. */
    @Benchmark
    @OperationsPerInvocation(QUERIES)
    public long leader() {
        long sum = 0;
        for (int i = 0; i < QUERIES; i++) {
            Node leader = cluster.leader(queryTopics[i], queryPartitions[i]);
            sum += leader.port() + leader.id();
        }
        return sum;
    }

    /** The reference: the topic from a plain {@code HashMap.get}, then {@code partition(p)}. */
    @Benchmark
    @OperationsPerInvocation(QUERIES)
    public long hashMapBaseline() {
        long sum = 0;
        for (int i = 0; i < QUERIES; i++) {
            sum += hashMap.get(queryTopics[i]).partition(queryPartitions[i]).leaderEpoch();
        }
        return sum;
    }
}
