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
 * P4, side by side: a full metadata response of 10k or 100k partitions (100 or 1,000 topics, see {@link Wire},
 * hashed or numbered names) applied to fresh metadata.
 *
 * <p>The {@code MetadataResponseData} objects come from a pool of {@value #POOL} equal copies built in setup, used in
 * turn; each operation wraps one in a new {@code MetadataResponse} (which has no cached state yet), then:
 * <ul>
 *   <li>{@code kafka-clients}: a new {@code ProducerMetadata}, {@code add(topic, nowMs)} of every topic (else the
 *       update would drop them), {@code updateWithCurrentRequestVersion(response, false, nowMs)};</li>
 *   <li>{@code kmeta}: {@code ResponseTranslator.translate(response, Cluster.empty())}, then a new
 *       {@code MergePath} ({@code ResponseMerger.merge} + {@code Cluster.apply}, the merge path of
 *       {@code MetadataManager.onResponse}) into {@code Cluster.empty()}.</li>
 * </ul>
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar ApplyFullResponse -prof gc -rf json -rff bench/results/apply-full-response.json
 * }</pre>
 * About 1.5 minutes (8 forks). One variant: {@code -p names=numbered}; longer: {@code -f 3 -i 10}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@State(Scope.Thread)
public class ApplyFullResponse {
    static final int POOL = 4;

    @Param({Wire.IMPL_KMETA, Wire.IMPL_KAFKA})
    String impl;

    @Param({"10000", "100000"})
    int partitions;

    @Param({"hashed", "numbered"})
    String names;

    String[] topicNames;
    MetadataResponseData[] pool;
    int next;

    @Setup(Level.Trial)
    public void setUp() {
        Wire.checkImpl(impl);
        int topics = partitions / ApplyDelta.PARTITIONS_PER_TOPIC;
        topicNames = ApplyDelta.topicNames(names, topics);
        pool = new MetadataResponseData[POOL];
        for (int i = 0; i < POOL; i++) {
            pool[i] = Wire.data(topicNames, 0, topics, 0);
        }
    }

    @Benchmark
    public Object apply() {
        MetadataResponse response = Wire.response(pool[next++ & (POOL - 1)]);
        if (Wire.IMPL_KAFKA.equals(impl)) {
            ProducerMetadata m = Wire.newProducerMetadata();
            long nowMs = System.currentTimeMillis();
            for (String name : topicNames) {
                m.add(name, nowMs);
            }
            m.updateWithCurrentRequestVersion(response, false, nowMs);
            return m;
        }
        Cluster empty = Cluster.empty();
        return new MergePath().apply(empty, ResponseTranslator.translate(response, empty));
    }
}
