package dev.kmeta.producer.internal;

import org.apache.kafka.clients.Metadata;
import org.apache.kafka.clients.MetadataSnapshot;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.internals.ClusterResourceListeners;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.utils.Timer;
import org.apache.kafka.common.utils.internals.LogContext;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * kmeta's stand-in for {@code ProducerMetadata}, for the kafka-clients 4.4 ABI (its constructor takes the 4.4
 * {@code LogContext} and no {@code Time}; {@code awaitUpdate} takes a {@code Timer}; {@code add(Collection, long)}
 * exists). Every method KafkaProducer, Sender, TransactionManager and NetworkClient call is overridden, without
 * {@code synchronized}, by one call to the ABI-neutral {@link ProducerBridge}; the superclass's own state is never
 * updated. Loaded only by name, after {@link KafkaClientsAbi} found its shape.
 *
 * <p>Thread-safe: no method takes this object's monitor (kafka-clients' are synchronized).
 */
@SuppressKafkaInternalApiUsage("the ProducerMetadata stand-in for the 4.4 ABI: overrides the internal class that "
        + "KafkaProducer, Sender and TransactionManager ask for metadata")
public final class ProducerMetadata44 extends ProducerMetadata implements StandIn {
    private final ProducerBridge bridge;

    /** Made by {@link KafkaClientsAbi} through reflection. */
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
        return bridge.fetch();
    }

    @Override
    public void add(String topic, long nowMs) {
        bridge.add(topic, nowMs);
    }

    @Override
    public OptionalInt add(Collection<String> topics, long nowMs) {
        return bridge.add(topics, nowMs);
    }

    @Override
    public int requestUpdateForTopic(String topic) {
        return bridge.requestUpdateForTopic(topic);
    }

    @Override
    public void awaitUpdate(int lastVersion, Timer timer) throws InterruptedException {
        bridge.awaitUpdate(lastVersion, timer.remainingMs());
    }

    @Override
    public Errors getError(String topic) {
        return bridge.getError(topic);
    }

    @Override
    public void maybeThrowExceptionForTopic(String topic) {
        bridge.maybeThrowExceptionForTopic(topic);
    }

    @Override
    public void maybeThrowAnyException() {
        // kmeta's waits throw what kmeta saw
    }

    @Override
    public void maybeThrowBootstrapFatalException() {
        // kmeta bootstraps; its waits say why when it cannot
    }

    @Override
    public boolean isClosed() {
        return bridge.isClosed();
    }

    // ---- Sender, TransactionManager, NetworkClient (the producer's network thread)

    @Override
    public MetadataSnapshot fetchMetadataSnapshot() {
        return bridge.fetchMetadataSnapshot();
    }

    @Override
    public Map<String, Uuid> topicIds() {
        return bridge.topicIds();
    }

    @Override
    public Map<Uuid, String> topicNames() {
        return bridge.topicNames();
    }

    @Override
    public int requestUpdate(boolean resetEquivalentResponseBackoff) {
        return bridge.requestUpdate();
    }

    @Override
    public int requestUpdateForNewTopics() {
        return bridge.requestUpdate();
    }

    @Override
    public Set<TopicPartition> updatePartitionLeadership(Map<TopicPartition, Metadata.LeaderIdAndEpoch> leaders,
                                                         List<Node> leaderNodes) {
        return bridge.updatePartitionLeadership(leaders, leaderNodes);
    }

    @Override
    public long timeToNextUpdate(long nowMs) {
        return bridge.timeToNextUpdate();
    }

    @Override
    public long timeToAllowUpdate(long nowMs) {
        return Long.MAX_VALUE;
    }

    @Override
    public boolean updateRequested() {
        return false;
    }

    @Override
    public long lastSuccessfulUpdate() {
        return bridge.lastSuccessfulUpdate();
    }

    @Override
    public int updateVersion() {
        return bridge.updateVersion();
    }

    @Override
    public void update(int requestVersion, MetadataResponse response, boolean isPartialUpdate, long nowMs) {
        bridge.ignored("update");
    }

    @Override
    public void updateWithCurrentRequestVersion(MetadataResponse response, boolean isPartialUpdate, long nowMs) {
        bridge.ignored("updateWithCurrentRequestVersion");
    }

    @Override
    public void failedUpdate(long now) {
        bridge.ignored("failedUpdate");
    }

    @Override
    public void bootstrap(List<InetSocketAddress> addresses) {
        bridge.ignored("bootstrap");
    }

    @Override
    public void rebootstrap() {
        bridge.ignored("rebootstrap");
    }

    @Override
    public void bootstrapFatalError(KafkaException exception) {
        bridge.ignored("bootstrapFatalError");
    }

    @Override
    public void fatalError(KafkaException exception) {
        bridge.ignored("fatalError");
    }

    @Override
    public void close() {
        bridge.close();
    }
}
