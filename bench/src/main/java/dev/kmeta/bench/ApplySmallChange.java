package dev.kmeta.bench;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.internal.MergePath;
import dev.kmeta.sender.internal.ResponseTranslator;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataResponse;
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
 * P3, side by side: a partial metadata response changing 1 topic (100 partitions, all leaders move, leader epoch
 * one higher than ever before) applied to a 10k- or 100k-partition state (100 or 1,000 topics, see {@link Wire}).
 *
 * <p>{@link #apply} builds, inside the measured method, a fresh {@code MetadataResponseData} for the next topic (in
 * a fixed stride over all topics) with every broker, as the decoder would, wraps it in a {@code MetadataResponse},
 * then:
 * <ul>
 *   <li>{@code kafka-clients}: {@code ProducerMetadata.updateWithCurrentRequestVersion(response, true, nowMs)},
 *       which is {@code update(requestVersion, response, isPartialUpdate = true, nowMs)};</li>
 *   <li>{@code kmeta}: {@code ResponseTranslator.translate(response, current)}, then the merge path of
 *       {@code MetadataManager.onResponse} ({@code ResponseMerger.merge} + {@code Cluster.apply}, via
 *       {@code MergePath}); the manager's bookkeeping around it (counters, change logging, waking waiters, the
 *       refresh state machine) is not measured.</li>
 * </ul>
 * {@link #wireOnly} builds the response alone; subtract it from {@link #apply} for the cost of the apply itself.
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar ApplySmallChange -prof gc -rf json -rff bench/results/apply-small-change.json
 * }</pre>
 * About 3 minutes (16 forks). One variant: {@code -p names=numbered}, {@code -p partitions=100000}; longer:
 * {@code -f 3 -i 10}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@State(Scope.Thread)
public class ApplySmallChange {
    /** A prime, coprime with any number of topics here: consecutive changes hit topics far apart. */
    static final int STRIDE = 7_919;

    /** Cluster size: 100 partitions per topic. */
    @Param({"10000", "100000"})
    int partitions;

    @Param({Wire.IMPL_KMETA, Wire.IMPL_KAFKA})
    String impl;

    @Param({"hashed", "numbered"})
    String names;

    String[] topicNames;
    int topics;
    ProducerMetadata kafka;
    Cluster kmeta;
    MergePath merge;
    int next;
    int epoch;

    @Setup(Level.Trial)
    public void setUp() {
        Wire.checkImpl(impl);
        topics = partitions / ApplyDelta.PARTITIONS_PER_TOPIC;
        topicNames = ApplyDelta.topicNames(names, topics);
        MetadataResponseData data = Wire.data(topicNames, 0, topics, 0);
        if (Wire.IMPL_KAFKA.equals(impl)) {
            kafka = Wire.producerMetadata(topicNames, data);
        } else {
            merge = new MergePath();
            kmeta = merge.apply(Cluster.empty(), ResponseTranslator.translate(Wire.response(data), Cluster.empty()));
        }
    }

    private MetadataResponse nextResponse() {
        int t = (int) ((long) next++ * STRIDE % topics);
        return Wire.response(Wire.data(topicNames, t, t + 1, ++epoch));
    }

    @Benchmark
    public Object apply() {
        MetadataResponse response = nextResponse();
        if (kafka != null) {
            kafka.updateWithCurrentRequestVersion(response, true, System.currentTimeMillis());
            return kafka;
        }
        kmeta = merge.apply(kmeta, ResponseTranslator.translate(response, kmeta));
        return kmeta;
    }

    @Benchmark
    public Object wireOnly() {
        return nextResponse();
    }
}
