package dev.kmeta.bench;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.internal.MetadataManager;
import java.util.Random;
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
import java.time.Duration;

/**
 * Where kmeta's send-path time in {@link SendPathLookup} goes: the same manager and queries (1 thread), with the
 * parts taken apart. {@link #awaitTopicThenLeader} is {@code SendPathLookup}'s kmeta operation;
 * {@link #snapshotLeader} skips the manager ({@code fetch().leader}); {@link #awaitTopicOnly} is the hit alone;
 * {@link #clockThenSnapshotLeader} adds one {@code System.nanoTime()} to {@link #snapshotLeader}.
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar SendPathParts -prof gc -rf json -rff bench/results/send-path-parts.json
 * }</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@State(Scope.Thread)
public class SendPathParts {
    static final int QUERIES = SendPathLookup.QUERIES;

    @Param({"hashed"})
    String names;

    MetadataManager kmeta;
    String[] topics;
    int[] partitions;
    Deadline deadline;

    @Setup(Level.Trial)
    public void setUp() {
        String[] topicNames = ApplyDelta.topicNames(names, SendPathLookup.TOPICS);
        kmeta = Wire.manager(topicNames, Wire.data(topicNames, 0, SendPathLookup.TOPICS, 0));
        Random random = new Random(17);
        topics = new String[QUERIES];
        partitions = new int[QUERIES];
        for (int i = 0; i < QUERIES; i++) {
            topics[i] = new String(topicNames[random.nextInt(SendPathLookup.TOPICS)].toCharArray());
            partitions[i] = random.nextInt(ApplyDelta.PARTITIONS_PER_TOPIC);
        }
        deadline = kmeta.newDeadline(Duration.ofSeconds(60));
    }

    @Benchmark
    @OperationsPerInvocation(QUERIES)
    public long awaitTopicThenLeader() {
        long sum = 0;
        for (int i = 0; i < QUERIES; i++) {
            sum += kmeta.awaitTopic(topics[i], partitions[i], deadline).leader(topics[i], partitions[i]).id();
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(QUERIES)
    public long awaitTopicOnly() {
        long sum = 0;
        for (int i = 0; i < QUERIES; i++) {
            sum += kmeta.awaitTopic(topics[i], partitions[i], deadline).version();
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(QUERIES)
    public long snapshotLeader() {
        long sum = 0;
        for (int i = 0; i < QUERIES; i++) {
            Cluster c = kmeta.fetch();
            sum += c.leader(topics[i], partitions[i]).id();
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(QUERIES)
    public long clockThenSnapshotLeader() {
        long sum = 0;
        for (int i = 0; i < QUERIES; i++) {
            sum += System.nanoTime();
            Cluster c = kmeta.fetch();
            sum += c.leader(topics[i], partitions[i]).id();
        }
        return sum;
    }
}
