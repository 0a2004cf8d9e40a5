package dev.kmeta.bench;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.internal.MetadataManager;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import java.time.Duration;

/**
 * P1, side by side: the send path's metadata work on a cache hit, 100k partitions (1,000 topics x 100, 6 brokers,
 * RF 3), both implementations fed the same full {@code MetadataResponse} (see {@link Wire}).
 *
 * <ul>
 *   <li>{@code kafka-clients}: a {@code ProducerMetadata} (every topic added, updated once); per send what
 *       {@code KafkaProducer.waitOnMetadata} does on a hit, plus the leader lookup of the accumulator:
 *       {@code nowMs = System.currentTimeMillis()}, {@code fetch()}, {@code invalidTopics().contains(topic)},
 *       {@code add(topic, nowMs)}, {@code partitionCountForTopic(topic)},
 *       {@code leaderFor(new TopicPartition(topic, p))}.</li>
 *   <li>{@code kmeta}: a {@code MetadataManager} (topics subscribed by zero-budget {@code awaitTopic}, one
 *       {@code poll}/{@code beginRefresh}/{@code onResponse} round with the translated response); per send
 *       {@code awaitTopic(topic, p, deadline)} (a hit) then {@code leader(topic, p)} on the returned snapshot. The
 *       {@code Deadline} is built once per thread in setup.</li>
 * </ul>
 * Each invocation does {@value #QUERIES} sends of (topic, partition) pairs drawn at random per thread; the names are
 * equal copies, not the metadata's own strings. {@link #oneThread} and {@link #twoThreads} share one metadata
 * instance ({@link Scope#Benchmark}); with 2 threads the score is the time per send of each thread.
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar SendPathLookup -prof gc -rf json -rff bench/results/send-path-lookup.json
 * }</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class SendPathLookup {
    static final int QUERIES = 1024;
    static final int TOPICS = 1_000;

    @Param({Wire.IMPL_KMETA, Wire.IMPL_KAFKA})
    String impl;

    @Param({"hashed", "numbered"})
    String names;

    String[] topicNames;
    ProducerMetadata kafka;
    MetadataManager kmeta;
    final AtomicInteger seeds = new AtomicInteger(17);

    @Setup(Level.Trial)
    public void setUp() {
        Wire.checkImpl(impl);
        topicNames = ApplyDelta.topicNames(names, TOPICS);
        MetadataResponseData data = Wire.data(topicNames, 0, TOPICS, 0);
        if (Wire.IMPL_KAFKA.equals(impl)) {
            kafka = Wire.producerMetadata(topicNames, data);
        } else {
            kmeta = Wire.manager(topicNames, data);
        }
    }

    /** One thread's queries and deadline. */
    @State(Scope.Thread)
    public static class Queries {
        String[] topics;
        int[] partitions;
        Deadline deadline;

        @Setup(Level.Trial)
        public void setUp(SendPathLookup b) {
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
        return kafka != null ? kafkaSends(q) : kmetaSends(q);
    }

    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(QUERIES)
    public long twoThreads(Queries q) {
        return kafka != null ? kafkaSends(q) : kmetaSends(q);
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

    private long kmetaSends(Queries q) {
        long sum = 0;
        for (int i = 0; i < QUERIES; i++) {
            String topic = q.topics[i];
            int p = q.partitions[i];
            Cluster c = kmeta.awaitTopic(topic, p, q.deadline);
            Node leader = c.leader(topic, p);
            sum += leader.id();
        }
        return sum;
    }
}
