/**
 * kmeta's cluster model: immutable snapshots of a Kafka cluster's metadata ({@code Cluster}, {@code TopicMetadata},
 * {@code PartitionMetadata}, {@code Node}) and the deltas that make the next one. Its {@code internal} package is
 * for kmeta's own modules only.
 */
@SuppressWarnings("module") // qualified exports name modules this module's build cannot see
module kmeta.cluster {
    exports dev.kmeta.cluster;
    exports dev.kmeta.cluster.internal to kmeta.metadata, kmeta.sender, kmeta.producer;
}
