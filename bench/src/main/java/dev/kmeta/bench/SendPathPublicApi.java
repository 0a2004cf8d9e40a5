package dev.kmeta.bench;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.sender.KafkaMetadata;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.MetadataResponseData;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import java.time.Duration;

/**
 * The send path's metadata work on a cache hit through each client's public entry point, 100k partitions (1,000
 * topics x 100, see {@link Wire}), both fed the same full answer. {@link SendPathLookup} (P1) measures kmeta's
 * manager; this one goes through {@code KafkaMetadata}, what a producer embedding kmeta calls.
 *
 * <ul>
 *   <li>{@code kafka-clients}: a {@code ProducerMetadata} (every topic added, updated once); per send what
 *       {@code KafkaProducer} does on a hit: {@code nowMs = System.currentTimeMillis()}, {@code fetch()},
 *       {@code invalidTopics().contains(topic)}, {@code add(topic, nowMs)}, {@code partitionCountForTopic(topic)},
 *       {@code leaderFor(new TopicPartition(topic, p))}.</li>
 *   <li>{@code kmeta}: a driven {@code KafkaMetadata} ({@link DrivenKmeta}: every topic subscribed, the full answer
 *       applied through a producer's client poll); per send {@link #kmetaLeader}:
 *       {@code awaitLeader(topic, p, deadline)}, the one-lookup send path (until 90dcbe7 this was
 *       {@code awaitTopic(topic, p, deadline)} then {@code leader(topic, p)}: two lookups of the topic).</li>
 *   <li>{@code kmeta-fetch}: a lower bound for such a one-lookup call, from public methods that exist now:
 *       {@code fetch()}, {@code Cluster.topic(topic)}, {@code Cluster.leader(topicObject, p)}. Not a correct send path
 *       on its own (it neither waits nor stamps the topic's use, so an idle topic would expire): it shows what a hit
 *       costs when the topic is looked up once.</li>
 * </ul>
 * Each invocation does {@value #QUERIES} sends of (topic, partition) pairs drawn at random per thread, names equal
 * copies of the metadata's own; one metadata instance is shared by the threads ({@link Scope#Benchmark}); with 2
 * threads the score is each thread's time per send.
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar SendPathPublicApi -prof gc -rf json -rff bench/results/send-path-public-api.json
 * }</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class SendPathPublicApi {
    static final int QUERIES = 1024;
    static final int TOPICS = 1_000;
    static final String IMPL_KMETA_FETCH = "kmeta-fetch";

    @Param({Wire.IMPL_KMETA, IMPL_KMETA_FETCH, Wire.IMPL_KAFKA})
    String impl;

    @Param({"hashed", "numbered"})
    String names;

    String[] topicNames;
    ProducerMetadata kafka;
    DrivenKmeta driven;
    KafkaMetadata kmeta;
    boolean oneLookup;
    final AtomicInteger seeds = new AtomicInteger(17);

    @Setup(Level.Trial)
    public void setUp() {
        if (!IMPL_KMETA_FETCH.equals(impl)) {
            Wire.checkImpl(impl);
        }
        topicNames = ApplyDelta.topicNames(names, TOPICS);
        MetadataResponseData data = Wire.data(topicNames, 0, TOPICS, 0);
        if (Wire.IMPL_KAFKA.equals(impl)) {
            kafka = Wire.producerMetadata(topicNames, data);
        } else {
            driven = DrivenKmeta.subscribedTo(topicNames, data);
            kmeta = driven.metadata;
            oneLookup = IMPL_KMETA_FETCH.equals(impl);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (driven != null) {
            driven.close();
        }
    }

    /** One thread's queries and deadline. */
    @State(Scope.Thread)
    public static class Queries {
        String[] topics;
        int[] partitions;
        Deadline deadline;

        @Setup(Level.Trial)
        public void setUp(SendPathPublicApi b) {
            Random random = new Random(b.seeds.getAndIncrement());
            topics = new String[QUERIES];
            partitions = new int[QUERIES];
            for (int i = 0; i < QUERIES; i++) {
                topics[i] = new String(b.topicNames[random.nextInt(TOPICS)].toCharArray());
                partitions[i] = random.nextInt(ApplyDelta.PARTITIONS_PER_TOPIC);
            }
            deadline = b.kmeta == null ? null : b.kmeta.newDeadline(Duration.ofSeconds(60)); // kmeta's side only
        }
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(QUERIES)
    public long oneThread(Queries q) {
        return sends(q);
    }

    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(QUERIES)
    public long twoThreads(Queries q) {
        return sends(q);
    }

    long sends(Queries q) {
        if (kafka != null) {
            return kafkaSends(q);
        }
        long sum = 0;
        for (int i = 0; i < QUERIES; i++) {
            Node leader = oneLookup ? leaderFromOneLookup(q.topics[i], q.partitions[i], q.deadline)
                    : kmetaLeader(q.topics[i], q.partitions[i], q.deadline);
            sum += leader.id();
        }
        return sum;
    }

    /** A producer's per-send metadata call through {@code KafkaMetadata}: the one-lookup send path. */
    private Node kmetaLeader(String topic, int p, Deadline deadline) {
        return kmeta.awaitLeader(topic, p, deadline);
    }

    /** {@code kmeta-fetch}: one topic lookup on the current snapshot; a miss goes the public way. */
    private Node leaderFromOneLookup(String topic, int p, Deadline deadline) {
        Cluster c = kmeta.fetch();
        TopicMetadata t = c.topic(topic);
        Node leader = t == null ? null : c.leader(t, p);
        return leader != null ? leader : kmetaLeader(topic, p, deadline);
    }

    private long kafkaSends(Queries q) {
        long sum = 0;
        for (int i = 0; i < QUERIES; i++) {
            String topic = q.topics[i];
            int p = q.partitions[i];
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
            org.apache.kafka.common.Node leader = c.leaderFor(new TopicPartition(topic, p));
            sum += leader.id() + count;
        }
        return sum;
    }
}
