package dev.kmeta.producer.internal.view;

import org.apache.kafka.clients.MetadataSnapshot;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The {@link MetadataSnapshot} a kmeta-backed producer's Sender and accumulator read: its {@code cluster()} is the
 * producer view's Kafka {@code Cluster}, and {@link #leaderEpochFor} answers from the {@link TopicParts} the view was
 * made of - one map by topic name, then an array of epochs made once per kmeta topic object - instead of a
 * per-partition map of Kafka's partition metadata. So a producer view holds per partition only what Kafka's
 * {@code Cluster} needs (its {@code PartitionInfo} and maps): about 100 B a partition less than a
 * {@code MetadataSnapshot} of Kafka's own making; and the Sender's ready check, which asks for every queued partition's
 * epoch on every loop, allocates nothing for it (Kafka's makes an {@code OptionalInt} per partition per loop).
 *
 * <p>Immutable and thread-safe. What the producer reads of a {@code MetadataSnapshot} is {@code cluster()} and
 * {@code leaderEpochFor} (kafka-clients 4.0-4.4: Sender, RecordAccumulator); the package-private accessors only
 * kafka-clients' own {@code Metadata} uses answer from an empty partition list.
 */
@SuppressKafkaInternalApiUsage("a MetadataSnapshot scoped to the producer's topics: the type Sender and "
        + "RecordAccumulator read metadata through")
final class ScopedMetadataSnapshot extends MetadataSnapshot {
    private final Map<String, TopicParts> parts;

    ScopedMetadataSnapshot(String clusterId, Map<Integer, Node> nodes, Set<String> unauthorizedTopics,
                           Set<String> invalidTopics, Set<String> internalTopics, Node controller,
                           Map<String, Uuid> topicIds, Cluster cluster, Map<String, TopicParts> parts) {
        super(clusterId, nodes, List.of(), unauthorizedTopics, invalidTopics, internalTopics, controller, topicIds,
                cluster);
        this.parts = parts;
    }

    /** The leader epoch kmeta has for {@code tp}, if the view holds its topic and the brokers gave one. */
    @Override
    public OptionalInt leaderEpochFor(TopicPartition tp) {
        TopicParts p = parts.get(tp.topic());
        return p == null ? OptionalInt.empty() : p.epoch(tp.partition());
    }
}
