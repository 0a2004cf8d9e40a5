package dev.kmeta.bench;

import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A full metadata answer (every topic, every partition) into a state that already knows the cluster, side by side,
 * through each client's public path: what a producer's periodic refresh ({@code metadata.max.age.ms}) or a
 * {@code requestUpdate()} costs on a 10k- or 100k-partition cluster (see {@link Wire}) where {@code change=one}
 * topic changed since the last answer (all 100 leaders moved, its epoch one higher) or {@code change=none}.
 *
 * <ul>
 *   <li>{@code kmeta}: a driven {@code KafkaMetadata} ({@code builder(props).buildDriven()}) attached to an
 *       testkit's {@code FakeKafkaClient} ({@link DrivenKmeta}); per operation {@code requestUpdate()} and one
 *       {@code poll} of the client, in which
 *       kmeta's step sends the full request and the completion callback applies the answer: translation, merge,
 *       snapshot, wake-ups, state machine, the lot ({@link DrivenKmeta}).</li>
 *   <li>{@code kafka-clients}: a {@code ProducerMetadata} (every topic added, updated once), per operation
 *       {@code updateWithCurrentRequestVersion(response, false, nowMs)} - what {@code NetworkClient}'s metadata
 *       updater calls with a full answer.</li>
 * </ul>
 * The answers are {@code pool} (4) equal {@code MetadataResponseData} used in turn (as from a decoder: each its own
 * objects, so no answer is still in the CPU caches from the last operation; {@code -p pool=1} reuses one). Before each use, the one due is brought
 * up to date in place (the topics changed since its last use get their leaders, epochs, replicas and ISR written;
 * nothing allocated), then wrapped in a new {@code MetadataResponse}; both implementations do that same work, which
 * {@link #wireOnly} measures alone. The answers live through the whole run, where a real one is read once, right
 * after the decoder allocated it; a full GC at the end of setup gives them that layout ({@code layout=compacted},
 * see {@link #layout}).
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar FullAnswer -prof gc -rf json -rff bench/results/full-answer.json
 * }</pre>
 * One variant: {@code -p names=numbered -p change=one}; the 10k cluster: {@code -p partitions=10000}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@State(Scope.Thread)
public class FullAnswer {
    /** Answers used in turn (a power of two): 4 by default, so that none is still in the CPU caches when used. */
    @Param({"4"})
    int pool;

    @Param({"100000"})
    int partitions;

    @Param({Wire.IMPL_KMETA, Wire.IMPL_KAFKA})
    String impl;

    @Param({"hashed", "numbered"})
    String names;

    /**
     * {@code compacted}: a full GC at the end of setup lays the answers (and each client's state) out in the order
     * they were allocated - the layout of an answer fresh from the decoder, read right after it was built;
     * {@code promoted}: as young collections copied them (the answers then lie scattered, unlike any real answer,
     * and reading them costs kmeta 2-3x more, kafka-clients barely more).
     */
    @Param({"compacted"})
    String layout;

    /** {@code one}: one topic changed since the last answer (a different one each time); {@code none}: nothing. */
    @Param({"one", "none"})
    String change;

    String[] topicNames;
    int topics;
    MetadataResponseData[] answers;
    /** The wire topics of each pooled answer, by topic number. */
    MetadataResponseTopic[][] wireTopics;
    /** Each topic's current leader epoch: what every answer says once brought up to date. */
    int[] epochs;
    /** The topics changed by the last {@link #pool} operations (-1: none yet). */
    int[] recent;
    long next;
    ProducerMetadata kafka;
    DrivenKmeta kmeta;

    @Setup(Level.Trial)
    public void setUp() {
        Wire.checkImpl(impl);
        if (!"one".equals(change) && !"none".equals(change)) {
            throw new IllegalArgumentException("change must be one or none: " + change);
        }
        if (!"compacted".equals(layout) && !"promoted".equals(layout)) {
            throw new IllegalArgumentException("layout must be compacted or promoted: " + layout);
        }
        topics = partitions / ApplyDelta.PARTITIONS_PER_TOPIC;
        topicNames = ApplyDelta.topicNames(names, topics);
        if (pool < 1 || Integer.bitCount(pool) != 1) {
            throw new IllegalArgumentException("pool must be a power of two: " + pool);
        }
        answers = new MetadataResponseData[pool];
        wireTopics = new MetadataResponseTopic[pool][];
        for (int i = 0; i < pool; i++) {
            answers[i] = Wire.data(topicNames, 0, topics, 0);
            wireTopics[i] = answers[i].topics().toArray(new MetadataResponseTopic[0]);
        }
        epochs = new int[topics];
        recent = new int[pool];
        java.util.Arrays.fill(recent, -1);
        MetadataResponseData first = Wire.data(topicNames, 0, topics, 0);
        if (Wire.IMPL_KAFKA.equals(impl)) {
            kafka = Wire.producerMetadata(topicNames, first);
        } else {
            kmeta = DrivenKmeta.subscribedTo(topicNames, first);
        }
        if ("compacted".equals(layout)) {
            System.gc(); // G1's full collection slides live objects together in the order they were allocated
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (kmeta != null) {
            kmeta.close();
        }
    }

    /** The next answer, up to date: with {@code change=one}, one more topic changed than in the one before. */
    MetadataResponse nextResponse() {
        int slot = (int) (next & (pool - 1));
        if ("one".equals(change)) {
            int t = (int) (next * ApplySmallChange.STRIDE % topics);
            epochs[t]++;
            recent[slot] = t;
            for (int changed : recent) { // what this answer missed since its last use, and this operation's change
                if (changed >= 0) {
                    write(wireTopics[slot][changed], changed, epochs[changed]);
                }
            }
        }
        next++;
        return Wire.response(answers[slot]);
    }

    /** Writes {@link Wire}'s partitions of topic {@code t} at {@code epoch} into {@code wire}, in place. */
    private static void write(MetadataResponseTopic wire, int t, int epoch) {
        for (MetadataResponsePartition p : wire.partitions()) {
            int leader = Wire.leader(t, p.partitionIndex(), epoch);
            p.setLeaderId(leader).setLeaderEpoch(epoch);
            for (int r = 0; r < ApplyDelta.REPLICATION_FACTOR; r++) {
                Integer id = (leader + r) % ApplyDelta.BROKERS;
                p.replicaNodes().set(r, id);
                p.isrNodes().set(r, id);
            }
        }
    }

    @Benchmark
    public Object answer() {
        MetadataResponse response = nextResponse();
        if (kafka != null) {
            kafka.updateWithCurrentRequestVersion(response, false, System.currentTimeMillis());
            return kafka;
        }
        return kmeta.refresh(response);
    }

    /**
     * The floor of any client that looks at the whole answer: bringing it up to date and wrapping it
     * ({@link #wireOnly}), then reading once every field a partition's metadata holds (leader, epoch, error, replica,
     * ISR and offline ids) - no comparison, no lookup, nothing kept.
     */
    @Benchmark
    public long readOnly() {
        MetadataResponse response = nextResponse();
        long sum = 0;
        for (MetadataResponseTopic t : response.data().topics()) {
            sum += t.errorCode();
            for (MetadataResponsePartition p : t.partitions()) {
                sum += p.leaderId() + p.leaderEpoch() + p.errorCode() + sum(p.replicaNodes()) + sum(p.isrNodes())
                        + sum(p.offlineReplicas());
            }
        }
        return sum;
    }

    private static long sum(java.util.List<Integer> ids) {
        long sum = ids.size();
        for (int i = 0; i < ids.size(); i++) {
            sum += ids.get(i);
        }
        return sum;
    }

    /**
     * kmeta's translation of the answer alone ({@code ResponseTranslator.translate} against the current snapshot,
     * which this benchmark does not move): the part of {@link #answer} that reads the whole answer. kmeta only.
     */
    @Benchmark
    public Object translateOnly() {
        if (kmeta == null) {
            throw new IllegalStateException("translateOnly is kmeta's: run it with -p impl=kmeta");
        }
        return dev.kmeta.sender.internal.ResponseTranslator.translate(nextResponse(), kmeta.metadata.fetch());
    }

    /** Bringing the answer up to date and wrapping it, alone (the same for both). */
    @Benchmark
    public Object wireOnly() {
        return nextResponse();
    }
}
