package dev.kmeta.bench;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.sender.DrivenKafkaMetadata;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.FakeKafkaClient;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataResponse;
import java.time.Duration;

/**
 * kmeta through its public entry point for the benchmarks: a driven {@link KafkaMetadata}
 * ({@code KafkaMetadata.builder(props).buildDriven()}) attached to testkit's {@link FakeKafkaClient} (every node
 * connected, each answer in the same poll, nothing recorded: {@code recordsNothing()}), so that every answer takes
 * the path a real one takes - {@code NetworkClient.poll} runs kmeta's step, which sends the request, and the
 * completion callback translates the answer, merges it, publishes the snapshot, wakes waiters and runs the state
 * machine. The instance runs on the client's fake clock, which stands still (no answer waits), so no timer of
 * kmeta's (age, idle expiry) fires during a run.
 *
 * <p>Retry backoffs are 0 and jitter off ({@code retry.backoff.ms=0}, {@code retry.backoff.max.ms=0},
 * {@code kmeta.metadata.jitter=0}, {@code kmeta.metadata.leaderless.refresh.ms=0}) so that a refresh asked for goes
 * out in the next poll: the benchmarks apply one answer after another, where a producer would see one every
 * {@code metadata.max.age.ms}. The rest is a producer's defaults.
 *
 * <p>Not thread-safe: one thread answers (it is the producer's network thread); any thread may read
 * {@link #metadata}.
 */
final class DrivenKmeta implements AutoCloseable {
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    final KafkaMetadata metadata;
    final FakeKafkaClient client;
    /** The answer to the next request(s); null: a request stays unanswered until its timeout. */
    private MetadataResponse answer;

    private DrivenKmeta(KafkaMetadata metadata, FakeKafkaClient client) {
        this.metadata = metadata;
        this.client = client;
    }

    /**
     * A driven instance with every topic of {@code names} subscribed (a zero-budget {@code awaitTopic} each, which
     * times out and subscribes it) and known: the first request is answered with {@code data}.
     */
    static DrivenKmeta subscribedTo(String[] names, MetadataResponseData data) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", "bench-broker:9092");
        props.put("client.id", "bench-driven-" + INSTANCES.incrementAndGet());
        props.put("retry.backoff.ms", "0");
        props.put("retry.backoff.max.ms", "0");
        props.put("kmeta.metadata.jitter", "0");
        // After an answer without news the next request waits out the leaderless-refresh backoff (100 ms by default).
        props.put("kmeta.metadata.leaderless.refresh.ms", "0");
        FakeKafkaClient client = new FakeKafkaClient().allConnected().answerDelayMs(0).recordsNothing();
        DrivenKafkaMetadata metadata = KafkaMetadata.builder(props).ticker(client::nanoTime).buildDriven();
        client.updater(metadata.metadataUpdater());
        metadata.attach(client);
        DrivenKmeta k = new DrivenKmeta(metadata, client);
        client.answers(nodeId -> k.answer);
        for (String name : names) {
            try {
                metadata.awaitTopic(name, MetadataClient.ANY_PARTITION, metadata.newDeadline(Duration.ZERO));
                throw new IllegalStateException("topic known before any answer: " + name);
            } catch (TimeoutException expected) {
                // Subscribed; the answer comes below.
            }
        }
        k.answer = Wire.response(data);
        client.poll(0, client.nowMs());
        int known = metadata.fetch().topicNames().size();
        if (known != names.length) {
            throw new IllegalStateException("kmeta holds " + known + " topics, not " + names.length);
        }
        return k;
    }

    /**
     * What a full refresh costs through the public path: {@code requestUpdate()}, then one poll of the producer's
     * client, in which kmeta sends the (full) request and the answer {@code response} is applied. Returns the new
     * snapshot's version.
     *
     * @throws IllegalStateException if the answer was not applied in that poll
     */
    int refresh(MetadataResponse response) {
        answer = response;
        int before = metadata.requestUpdate();
        client.poll(0, client.nowMs());
        int after = metadata.fetch().version();
        if (after <= before) {
            throw new IllegalStateException("the answer was not applied: version " + after + " after " + before
                    + ", state " + metadata.state());
        }
        return after;
    }

    @Override
    public void close() {
        metadata.close();
    }
}
