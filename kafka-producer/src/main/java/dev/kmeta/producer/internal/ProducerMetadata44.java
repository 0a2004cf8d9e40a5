package dev.kmeta.producer.internal;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import dev.kmeta.sender.internal.Handles;
import org.apache.kafka.clients.Metadata;
import org.apache.kafka.clients.MetadataSnapshot;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.BootstrapResolutionException;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.internals.ClusterResourceListeners;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.utils.Timer;
import org.apache.kafka.common.utils.internals.LogContext;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * kmeta's stand-in for {@code ProducerMetadata}, for the kafka-clients 4.4 ABI (its constructor takes the 4.4
 * {@code LogContext} and no {@code Time}; {@code awaitUpdate} takes a {@code Timer}; {@code add(Collection, long)}
 * exists). Every method KafkaProducer, Sender, TransactionManager and NetworkClient call is overridden, without
 * {@code synchronized}, by one call to the ABI-neutral {@link ProducerBridge}; the superclass's own state is never
 * updated. Loaded only by name, after {@link dev.kmeta.producer.internal.abi.KafkaClientsAbi} found its
 * shape.
 *
 * <p>Each call is first told to the test hook's listener ({@link StandInCalls}) when one was installed as this was
 * made; otherwise it costs a null check.
 *
 * <p>Thread-safe: no method takes this object's monitor (kafka-clients' are synchronized).
 */
@SuppressKafkaInternalApiUsage("the ProducerMetadata stand-in for the 4.4 ABI: overrides the internal class that "
        + "KafkaProducer, Sender and TransactionManager ask for metadata")
public final class ProducerMetadata44 extends ProducerMetadata implements StandIn {
    private final ProducerBridge bridge;
    /** The test hook's listener when one was installed as this was made ({@link StandInCalls}); else null. */
    private final StandInCalls.Listener calls = StandInCalls.installed();

    /** Made by {@link dev.kmeta.producer.internal.abi.KafkaClientsAbi} through reflection. */
    public ProducerMetadata44(ProducerBridge bridge, long refreshBackoffMs, long refreshBackoffMaxMs,
                              long metadataExpireMs, long metadataIdleMs) {
        super(refreshBackoffMs, refreshBackoffMaxMs, metadataExpireMs, metadataIdleMs,
                new LogContext(bridge.logPrefix()), new ClusterResourceListeners());
        this.bridge = bridge;
    }

    @Override
    public ProducerBridge bridge() {
        return bridge;
    }

    // ---- KafkaProducer (application threads)

    @Override
    public Cluster fetch() {
        if (calls != null) {
            calls.called(this, "fetch");
        }
        return bridge.fetch();
    }

    @Override
    public void add(String topic, long nowMs) {
        if (calls != null) {
            calls.called(this, "add");
        }
        bridge.add(topic, nowMs);
    }

    @Override
    public OptionalInt add(Collection<String> topics, long nowMs) {
        if (calls != null) {
            calls.called(this, "add(Collection)");
        }
        return bridge.add(topics, nowMs);
    }

    @Override
    public int requestUpdateForTopic(String topic) {
        if (calls != null) {
            calls.called(this, "requestUpdateForTopic");
        }
        return bridge.requestUpdateForTopic(topic);
    }

    @Override
    public void awaitUpdate(int lastVersion, Timer timer) throws InterruptedException {
        if (calls != null) {
            calls.called(this, "awaitUpdate");
        }
        long budgetMs = timer.remainingMs();
        long waitedMs = awaitBootstrapResolution(budgetMs);
        bridge.awaitUpdate(lastVersion, Math.max(0, budgetMs - waitedMs));
    }

    /**
     * {@code bootstrap.resolve.timeout.ms} as kafka-clients 4.4 reads a positive value (issue 39): while no broker
     * ever answered, a send waits until the bound passed with no bootstrap name resolving and then fails as a stock
     * producer's does, with a {@link BootstrapResolutionException} carrying kmeta's BOOTSTRAP_DNS diagnosis (in its
     * message, and in a suppressed {@code KafkaMetadataTimeoutException} for {@code Diagnosis.from}); so does every
     * send after it, until a name resolves (kmeta keeps resolving; stock's producer must be re-created). The send is
     * woken by the instance's report of the failure; a budget ending first (on the instance's ticker) goes on to
     * kmeta's ordinary timeout.
     */
    private long awaitBootstrapResolution(long budgetMs) throws InterruptedException {
        KafkaMetadata m = bridge.metadata();
        throwIfBootstrapFailed(m);
        if (m.config().bootstrapResolveTimeoutMs() <= 0 || !m.fetch().nodes().isEmpty()) {
            return 0;
        }
        Deadline deadline = m.newDeadline(Duration.ofMillis(Math.max(0, budgetMs - bridge.giveUpEarlyMs())));
        long startNs = deadline.ticker().nanoTime();
        for (long leftNs = deadline.remainingNs(); leftNs > 0 && m.fetch().nodes().isEmpty();
                leftNs = deadline.remainingNs()) {
            // woken by the instance's report of the failure (a change of its evidence), a first answer, close
            Handles.parkUntilChange(m, leftNs, () -> m.fetch().nodes().isEmpty()
                    && m.bootstrapResolutionFailure() == null);
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for the bootstrap names to resolve");
            }
            throwIfBootstrapFailed(m);
        }
        return TimeUnit.NANOSECONDS.toMillis(deadline.ticker().nanoTime() - startNs);
    }

    private static void throwIfBootstrapFailed(KafkaMetadata m) {
        Diagnosis d = m.bootstrapResolutionFailure();
        if (d != null) {
            BootstrapResolutionException e = new BootstrapResolutionException("Failed to resolve bootstrap servers "
                    + "after " + m.config().bootstrapResolveTimeoutMs() + "ms. Please check your bootstrap.servers "
                    + "configuration and DNS settings. (kmeta: " + d.message() + ")");
            e.addSuppressed(new KafkaMetadataTimeoutException(d.message(), d));
            throw e;
        }
    }

    @Override
    public Errors getError(String topic) {
        if (calls != null) {
            calls.called(this, "getError");
        }
        return bridge.getError(topic);
    }

    @Override
    public void maybeThrowExceptionForTopic(String topic) {
        if (calls != null) {
            calls.called(this, "maybeThrowExceptionForTopic");
        }
        bridge.maybeThrowExceptionForTopic(topic);
    }

    @Override
    public void maybeThrowAnyException() {
        if (calls != null) {
            calls.called(this, "maybeThrowAnyException");
        }
        // kmeta's waits throw what kmeta saw
    }

    @Override
    public void maybeThrowBootstrapFatalException() {
        if (calls != null) {
            calls.called(this, "maybeThrowBootstrapFatalException");
        }
        // kmeta bootstraps; its waits say why when it cannot
    }

    @Override
    public boolean isClosed() {
        if (calls != null) {
            calls.called(this, "isClosed");
        }
        return bridge.isClosed();
    }

    // ---- Sender, TransactionManager, NetworkClient (the producer's network thread)

    @Override
    public MetadataSnapshot fetchMetadataSnapshot() {
        if (calls != null) {
            calls.called(this, "fetchMetadataSnapshot");
        }
        return bridge.fetchMetadataSnapshot();
    }

    @Override
    public Map<String, Uuid> topicIds() {
        if (calls != null) {
            calls.called(this, "topicIds");
        }
        return bridge.topicIds();
    }

    @Override
    public Map<Uuid, String> topicNames() {
        if (calls != null) {
            calls.called(this, "topicNames");
        }
        return bridge.topicNames();
    }

    @Override
    public int requestUpdate(boolean resetEquivalentResponseBackoff) {
        if (calls != null) {
            calls.called(this, "requestUpdate");
        }
        return bridge.requestUpdate();
    }

    @Override
    public int requestUpdateForNewTopics() {
        if (calls != null) {
            calls.called(this, "requestUpdateForNewTopics");
        }
        return bridge.requestUpdate();
    }

    @Override
    public Set<TopicPartition> updatePartitionLeadership(Map<TopicPartition, Metadata.LeaderIdAndEpoch> leaders,
                                                         List<Node> leaderNodes) {
        if (calls != null) {
            calls.called(this, "updatePartitionLeadership");
        }
        return bridge.updatePartitionLeadership(leaders, leaderNodes);
    }

    @Override
    public long timeToNextUpdate(long nowMs) {
        if (calls != null) {
            calls.called(this, "timeToNextUpdate");
        }
        return bridge.timeToNextUpdate();
    }

    @Override
    public long timeToAllowUpdate(long nowMs) {
        if (calls != null) {
            calls.called(this, "timeToAllowUpdate");
        }
        return Long.MAX_VALUE;
    }

    @Override
    public boolean updateRequested() {
        if (calls != null) {
            calls.called(this, "updateRequested");
        }
        return false;
    }

    @Override
    public long lastSuccessfulUpdate() {
        if (calls != null) {
            calls.called(this, "lastSuccessfulUpdate");
        }
        return bridge.lastSuccessfulUpdate();
    }

    @Override
    public int updateVersion() {
        if (calls != null) {
            calls.called(this, "updateVersion");
        }
        return bridge.updateVersion();
    }

    @Override
    public void update(int requestVersion, MetadataResponse response, boolean isPartialUpdate, long nowMs) {
        if (calls != null) {
            calls.called(this, "update");
        }
        bridge.ignored("update");
    }

    @Override
    public void updateWithCurrentRequestVersion(MetadataResponse response, boolean isPartialUpdate, long nowMs) {
        if (calls != null) {
            calls.called(this, "updateWithCurrentRequestVersion");
        }
        bridge.ignored("updateWithCurrentRequestVersion");
    }

    @Override
    public void failedUpdate(long now) {
        if (calls != null) {
            calls.called(this, "failedUpdate");
        }
        bridge.ignored("failedUpdate");
    }

    @Override
    public void bootstrap(List<InetSocketAddress> addresses) {
        if (calls != null) {
            calls.called(this, "bootstrap");
        }
        bridge.ignored("bootstrap");
    }

    @Override
    public void rebootstrap() {
        if (calls != null) {
            calls.called(this, "rebootstrap");
        }
        bridge.ignored("rebootstrap");
    }

    @Override
    public void bootstrapFatalError(KafkaException exception) {
        if (calls != null) {
            calls.called(this, "bootstrapFatalError");
        }
        bridge.ignored("bootstrapFatalError");
    }

    @Override
    public void fatalError(KafkaException exception) {
        if (calls != null) {
            calls.called(this, "fatalError");
        }
        bridge.ignored("fatalError");
    }

    @Override
    public void close() {
        if (calls != null) {
            calls.called(this, "close");
        }
        bridge.close();
    }
}
