package dev.kmeta.producer.internal.view;

import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
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
 * producer view's Kafka {@code Cluster}, and {@link #leaderEpochFor} reads the leader epoch from kmeta's own topic
 * objects - the very ones the view was made from - instead of a per-partition map of Kafka's partition metadata. So a
 * producer view holds per partition only what Kafka's {@code Cluster} needs (its {@code PartitionInfo} and maps):
 * about 100 B a partition less than a {@code MetadataSnapshot} of Kafka's own making.
 *
 * <p>Immutable and thread-safe. What the producer reads of a {@code MetadataSnapshot} is {@code cluster()} and
 * {@code leaderEpochFor} (kafka-clients 4.0-4.4: Sender, RecordAccumulator); the package-private accessors only
 * kafka-clients' own {@code Metadata} uses answer from an empty partition list.
 */
@SuppressKafkaInternalApiUsage("a MetadataSnapshot scoped to the producer's topics: the type Sender and "
        + "RecordAccumulator read metadata through")
final class ScopedMetadataSnapshot extends MetadataSnapshot {
    private final Map<String, TopicMetadata> sources;

    ScopedMetadataSnapshot(String clusterId, Map<Integer, Node> nodes, Set<String> unauthorizedTopics,
                           Set<String> invalidTopics, Set<String> internalTopics, Node controller,
                           Map<String, Uuid> topicIds, Cluster cluster, Map<String, TopicMetadata> sources) {
        super(clusterId, nodes, List.of(), unauthorizedTopics, invalidTopics, internalTopics, controller, topicIds,
                cluster);
        this.sources = sources;
    }

    /** The leader epoch kmeta has for {@code tp}, if the view holds its topic and the brokers gave one. */
    @Override
    public OptionalInt leaderEpochFor(TopicPartition tp) {
        TopicMetadata t = sources.get(tp.topic());
        PartitionMetadata p = t == null ? null : t.partition(tp.partition());
        return p == null || p.leaderEpoch() == PartitionMetadata.NO_EPOCH ? OptionalInt.empty()
                : OptionalInt.of(p.leaderEpoch());
    }
}
