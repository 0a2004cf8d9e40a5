package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Decides what of a metadata answer to believe, and turns it into a {@link ClusterDelta}. The rules:
 * <ul>
 *   <li>an answer listing no broker is not believed at all (KAFKA-7924);</li>
 *   <li>leader epochs never go backwards (KIP-320) - except when the topic id changed (the topic was re-created),
 *       the cluster id changed, or the brokers sent the same lower epoch {@code rewindAcceptCount} answers in a
 *       row (franz-go's escape for a real rollback);</li>
 *   <li>an epoch of -1 ("no epoch") never replaces a real one; answers too old to carry epochs are taken as they
 *       are;</li>
 *   <li>a topic's partition count never shrinks because one answer lacked partitions (unless its id changed);</li>
 *   <li>only subscribed topics are taken; {@code UNKNOWN_TOPIC_OR_PARTITION} removes a topic (deleted),
 *       {@code TOPIC_AUTHORIZATION_FAILED} and {@code INVALID_TOPIC_EXCEPTION} mark it; other topic errors
 *       ({@code LEADER_NOT_AVAILABLE}...) keep what was known;</li>
 *   <li>a new cluster id drops every topic the answer does not describe, or describes without partitions (an error
 *       such as {@code LEADER_NOT_AVAILABLE}), and every unauthorized or invalid mark the answer does not repeat:
 *       metadata of two clusters never mix;</li>
 *   <li>a topic id an answer brings for a topic known without one is learned (so a later re-creation is seen);</li>
 *   <li>the controller id is taken as the answer reports it, and is no news: ZooKeeper-era brokers report the
 *       controller, KRaft brokers a random live broker (a different one from answer to answer), not the active
 *       controller, which clients cannot learn from a Metadata answer.</li>
 * </ul>
 * Not thread-safe: the sender thread alone uses it (it keeps the epoch-rewind counters).
 */
final class ResponseMerger {
    static final short UNKNOWN_TOPIC_OR_PARTITION = 3;
    static final short LEADER_NOT_AVAILABLE = 5;
    static final short INVALID_TOPIC_EXCEPTION = 17;
    static final short TOPIC_AUTHORIZATION_FAILED = 29;

    private final int rewindAcceptCount;
    /** (topic, partition) -> {lower epoch seen, times in a row}; only partitions currently rewinding. */
    private final Map<String, Map<Integer, int[]>> rewinds = new HashMap<>();

    ResponseMerger(int rewindAcceptCount) {
        this.rewindAcceptCount = rewindAcceptCount;
    }

    /** What one answer does to the snapshot. */
    static final class Result {
        final ClusterDelta delta;
        final Set<String> changedTopics;
        final int staleEpochsRejected;
        final boolean clusterIdChanged;
        final int leadersMoved;

        Result(ClusterDelta delta, Set<String> changedTopics, int staleEpochsRejected, boolean clusterIdChanged,
               int leadersMoved) {
            this.delta = delta;
            this.changedTopics = changedTopics;
            this.staleEpochsRejected = staleEpochsRejected;
            this.clusterIdChanged = clusterIdChanged;
            this.leadersMoved = leadersMoved;
        }
    }

    /**
     * Merges an answer into the current snapshot.
     *
     * @return the result, or null when the answer is not to be believed at all (no brokers)
     */
    Result merge(Cluster current, RefreshResponse response, Predicate<String> subscribed) {
        if (response.brokers().isEmpty()) {
            return null;
        }
        boolean idChanged = current.clusterId() != null && response.clusterId() != null
                && !current.clusterId().equals(response.clusterId());
        ClusterDelta.Builder delta = ClusterDelta.builder()
                .clusterId(response.clusterId() != null ? response.clusterId() : current.clusterId())
                .controllerId(response.controllerId())
                .nodes(response.brokers());
        Set<String> changed = new LinkedHashSet<>();
        int[] counters = new int[2]; // stale epochs rejected, leaders moved
        if (idChanged) {
            rewinds.clear();
            dropUndescribed(current.topicNames(), response, delta, changed);
            // The old cluster's verdicts too: its ACLs and name checks say nothing of the new one.
            dropUndescribed(current.unauthorizedTopics(), response, delta, changed);
            dropUndescribed(current.invalidTopics(), response, delta, changed);
        }
        for (TopicMetadata t : toMerge(current, response, idChanged)) {
            // An unknown topic we do not know either changes nothing, subscribed or not: no subscription lookup
            // (the answer to 1,000 missing topics is 999 of those, bench P6).
            boolean nothingToForget = t.errorCode() == UNKNOWN_TOPIC_OR_PARTITION && current.topic(t.name()) == null;
            if (!nothingToForget && subscribed.test(t.name())) {
                mergeTopic(current, t, idChanged, response.epochsTrusted(), delta, changed, counters);
            }
        }
        return new Result(delta.build(), changed, counters[0], idChanged, counters[1]);
    }

    /**
     * The topics of the answer that can change anything. When the answer was translated against this very snapshot
     * ({@link RefreshResponse#basedOn}), a topic it reuses is the snapshot's own object with no error and with
     * partitions, which {@link #mergeTopic} leaves as it is - unless the cluster id changed, or epochs are trusted
     * and a rewind is being counted (an equal topic resets its count): then every topic goes through. Otherwise only
     * the others ({@link RefreshResponse#notFromBase}) do: one topic, not 1,000, for a full answer where one changed.
     */
    private Collection<TopicMetadata> toMerge(Cluster current, RefreshResponse response, boolean idChanged) {
        boolean skipReused = response.basedOn() == current && !idChanged
                && (rewinds.isEmpty() || !response.epochsTrusted());
        return skipReused ? response.notFromBase() : response.topics().values();
    }

    private static void dropUndescribed(Set<String> names, RefreshResponse response, ClusterDelta.Builder delta,
                                        Set<String> changed) {
        for (String name : names) {
            if (!response.topics().containsKey(name)) {
                delta.removeTopic(name);
                changed.add(name);
            }
        }
    }

    private void mergeTopic(Cluster current, TopicMetadata t, boolean clusterChanged, boolean epochsTrusted,
                            ClusterDelta.Builder delta, Set<String> changed, int[] counters) {
        String name = t.name();
        TopicMetadata old = current.topic(name);
        switch (t.errorCode()) {
            case UNKNOWN_TOPIC_OR_PARTITION:
                if (old != null) {
                    delta.removeTopic(name);
                    changed.add(name);
                    rewinds.remove(name);
                }
                return;
            case TOPIC_AUTHORIZATION_FAILED:
                if (old != null || !current.unauthorizedTopics().contains(name)) {
                    delta.unauthorizedTopic(name);
                    changed.add(name);
                }
                return;
            case INVALID_TOPIC_EXCEPTION:
                if (old != null || !current.invalidTopics().contains(name)) {
                    delta.invalidTopic(name);
                    changed.add(name);
                }
                return;
            default:
                break;
        }
        if (t.partitionCount() == 0) {
            if (clusterChanged && old != null) { // what we know is the old cluster's: never mix the two
                delta.removeTopic(name);
                changed.add(name);
            }
            return; // an error such as LEADER_NOT_AVAILABLE with nothing to say: keep what we know
        }
        if (t == old && !clusterChanged) {
            // The translator found the answer equal to the snapshot's own topic (a full answer repeats most topics
            // as they were): nothing to merge, no per-partition pass (bench FullAnswer: 440 KB and ~1 ms per answer
            // at 100k partitions).
            if (epochsTrusted) {
                rewinds.remove(name); // what mergeKnown's per-partition rewind reset does for an equal topic
            }
            return;
        }
        TopicMetadata merged = clusterChanged || old == null || topicIdChanged(old, t)
                ? fresh(name, t) : mergeKnown(old, t, epochsTrusted, counters);
        if (!merged.equals(old)) {
            delta.putTopic(merged);
            changed.add(name);
            counters[1] += leadersMoved(old, merged);
        }
    }

    private TopicMetadata fresh(String name, TopicMetadata t) {
        rewinds.remove(name);
        return t;
    }

    private static boolean topicIdChanged(TopicMetadata old, TopicMetadata t) {
        return old.topicId() != null && t.topicId() != null && !old.topicId().equals(t.topicId());
    }

    private TopicMetadata mergeKnown(TopicMetadata old, TopicMetadata t, boolean epochsTrusted, int[] counters) {
        int count = Math.max(old.partitionCount(), t.partitionCount());
        List<PartitionMetadata> partitions = new ArrayList<>(count);
        boolean keptAll = old.partitionCount() == count;
        for (int i = 0; i < count; i++) {
            PartitionMetadata o = old.partition(i);
            PartitionMetadata n = t.partition(i);
            PartitionMetadata chosen = choose(t.name(), i, o, n, epochsTrusted, counters);
            keptAll &= chosen == o;
            partitions.add(chosen);
        }
        UUID topicId = t.topicId() != null ? t.topicId() : old.topicId();
        if (keptAll && old.errorCode() == t.errorCode() && old.isInternal() == t.isInternal()
                && Objects.equals(old.topicId(), topicId)) { // an id learned late is news: it reveals re-creation
            return old;
        }
        return TopicMetadata.of(t.name(), topicId, t.isInternal(), t.errorCode(), partitions);
    }

    private PartitionMetadata choose(String topic, int index, PartitionMetadata o, PartitionMetadata n,
                                     boolean epochsTrusted, int[] counters) {
        if (n == null || isPlaceholder(n)) {
            return o != null ? o : n; // the answer skipped it: never shrink, keep what we know
        }
        if (o == null || !epochsTrusted) {
            return n;
        }
        if (n.leaderEpoch() == PartitionMetadata.NO_EPOCH && o.leaderEpoch() != PartitionMetadata.NO_EPOCH) {
            return o;
        }
        if (n.leaderEpoch() < o.leaderEpoch()) {
            if (acceptRewind(topic, index, n.leaderEpoch())) {
                return n;
            }
            counters[0]++;
            return o;
        }
        clearRewind(topic, index);
        return n.equals(o) ? o : n;
    }

    /** A partition a topic's list skipped: filled in by {@link TopicMetadata} as leaderless with no replicas. */
    private static boolean isPlaceholder(PartitionMetadata p) {
        return !p.hasLeader() && p.replicaCount() == 0 && p.leaderEpoch() == PartitionMetadata.NO_EPOCH
                && p.errorCode() == PartitionMetadata.LEADER_NOT_AVAILABLE;
    }

    private boolean acceptRewind(String topic, int partition, int lowerEpoch) {
        Map<Integer, int[]> byPartition = rewinds.computeIfAbsent(topic, t -> new HashMap<>());
        int[] seen = byPartition.get(partition);
        if (seen == null || seen[0] != lowerEpoch) {
            seen = new int[] {lowerEpoch, 0};
            byPartition.put(partition, seen);
        }
        seen[1]++;
        if (seen[1] >= rewindAcceptCount) {
            clearRewind(topic, partition);
            return true;
        }
        return false;
    }

    private void clearRewind(String topic, int partition) {
        Map<Integer, int[]> byPartition = rewinds.get(topic);
        if (byPartition != null && byPartition.remove(partition) != null && byPartition.isEmpty()) {
            rewinds.remove(topic);
        }
    }

    void forget(String topic) {
        rewinds.remove(topic);
    }

    private static int leadersMoved(TopicMetadata old, TopicMetadata merged) {
        if (old == null) {
            return 0;
        }
        int moved = 0;
        int n = Math.min(old.partitionCount(), merged.partitionCount());
        for (int i = 0; i < n; i++) {
            if (old.partition(i).leaderId() != merged.partition(i).leaderId()) {
                moved++;
            }
        }
        return moved;
    }
}
