package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.TopicMetadata;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A metadata answer, already decoded from the wire: the brokers, cluster id, controller and the topics it
 * describes, each with its Kafka error code (topic-level on {@link TopicMetadata#errorCode()}, partition-level on
 * each partition). Topics the broker answered with an error (unknown, unauthorized, invalid, leader not available)
 * are here too, with that error code and usually no partitions.
 *
 * <p>Immutable and thread-safe. The sender's response translation builds it; the manager alone decides what of it
 * to believe (epochs, shrinking partition counts, unknown leaders).
 */
public final class RefreshResponse {
    private final String clusterId;
    private final int controllerId;
    private final List<Node> brokers;
    private final Map<String, TopicMetadata> topics;
    private final boolean epochsTrusted;
    private final short topLevelErrorCode;
    private final Cluster basedOn;
    private final List<TopicMetadata> notFromBase;

    /**
     * @param clusterId         the cluster id, or null
     * @param controllerId      the controller id, or -1
     * @param brokers           the brokers listed in the answer
     * @param topics            the topics by name
     * @param epochsTrusted     false when the response version is too old to carry leader epochs (below 9)
     * @param topLevelErrorCode the response's top-level error code (e.g. {@code REBOOTSTRAP_REQUIRED}), 0 if none
     */
    public RefreshResponse(String clusterId, int controllerId, List<Node> brokers, Map<String, TopicMetadata> topics,
                           boolean epochsTrusted, short topLevelErrorCode) {
        this(clusterId, controllerId, brokers, topics, epochsTrusted, topLevelErrorCode, null, null);
    }

    /**
     * An answer translated against a snapshot: each topic in {@code topics} that is not in {@code notFromBase} is
     * {@code basedOn}'s own object for that name (the answer repeats it exactly) and has no topic-level error (its
     * error code is 0) and at least one partition, so that merging it into that same
     * snapshot can skip it without a lookup (a full answer where one topic of 1,000 changed, bench FullAnswer).
     *
     * @param basedOn     the snapshot the topics were compared with
     * @param notFromBase the topics of {@code topics} that are not {@code basedOn}'s objects, in the same order
     */
    public RefreshResponse(String clusterId, int controllerId, List<Node> brokers, Map<String, TopicMetadata> topics,
                           boolean epochsTrusted, short topLevelErrorCode, Cluster basedOn,
                           List<TopicMetadata> notFromBase) {
        if ((basedOn == null) != (notFromBase == null)) {
            throw new IllegalArgumentException("basedOn and notFromBase go together");
        }
        this.clusterId = clusterId;
        this.controllerId = controllerId;
        this.brokers = Collections.unmodifiableList(brokers);
        this.topics = Collections.unmodifiableMap(topics);
        this.epochsTrusted = epochsTrusted;
        this.topLevelErrorCode = topLevelErrorCode;
        this.basedOn = basedOn;
        this.notFromBase = notFromBase == null ? null : Collections.unmodifiableList(notFromBase);
    }

    /** The snapshot whose own topic objects this answer reuses, or null when it does not say. */
    public Cluster basedOn() {
        return basedOn;
    }

    /** With {@link #basedOn}: the topics that are not that snapshot's objects, in answer order; else null. */
    public List<TopicMetadata> notFromBase() {
        return notFromBase;
    }

    /** The cluster id, or null. */
    public String clusterId() {
        return clusterId;
    }

    /** The controller id, or -1. */
    public int controllerId() {
        return controllerId;
    }

    /** The brokers listed. */
    public List<Node> brokers() {
        return brokers;
    }

    /** The topics described, by name. */
    public Map<String, TopicMetadata> topics() {
        return topics;
    }

    /** Whether leader epochs in this answer can be trusted (MetadataResponse v9+). */
    public boolean epochsTrusted() {
        return epochsTrusted;
    }

    /** The top-level error code, 0 if none. */
    public short topLevelErrorCode() {
        return topLevelErrorCode;
    }

    @Override
    public String toString() {
        return "RefreshResponse(cluster=" + clusterId + ", brokers=" + brokers.size() + ", topics=" + topics.size()
                + (topLevelErrorCode == 0 ? "" : ", error=" + topLevelErrorCode) + ")";
    }
}
