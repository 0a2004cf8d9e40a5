package dev.kmeta.producer.internal.view;

import dev.kmeta.cluster.TopicMetadata;
import org.apache.kafka.clients.MetadataSnapshot;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A network-thread view of one set of topics over one broker set: the Kafka {@code Cluster} and
 * {@code MetadataSnapshot} a producer's Sender, accumulator and NetworkClient read, made of the {@link TopicParts} of
 * the kmeta topic objects it lists. Every producer of a kmeta instance whose topics are this set reads this one object
 * ({@link InstanceViews}): Kafka's {@code Cluster} makes a {@code TopicPartition} and map entries per partition, so
 * one view per producer was that much per producer.
 *
 * <p>Immutable and thread-safe but for the lazily made id-to-name map (racing threads make equal maps; either is
 * kept).
 */
@SuppressKafkaInternalApiUsage("builds the MetadataSnapshot the producer's Sender reads")
final class TopicsView {
    final Cluster cluster;
    final MetadataSnapshot snapshot;
    final Map<String, Uuid> topicIds;
    /** The topic names this view was made for (immutable; the key producers share it by). */
    final Set<String> names;
    private final Map<String, TopicParts> sources;
    /** The broker set this view is over; null for a view of brokers alone (bootstrap, closed). */
    private final KafkaNodes nodes;
    private volatile Map<Uuid, String> topicNames;

    private TopicsView(Cluster cluster, MetadataSnapshot snapshot, Map<String, Uuid> topicIds, Set<String> names,
                       Map<String, TopicParts> sources, KafkaNodes nodes) {
        this.cluster = cluster;
        this.snapshot = snapshot;
        this.topicIds = topicIds;
        this.names = names;
        this.sources = sources;
        this.nodes = nodes;
    }

    /** A view of brokers alone and no topic (the bootstrap view, the closed view). */
    static TopicsView brokersOnly(Cluster brokers) {
        Map<Integer, Node> byId = new HashMap<>();
        for (Node n : brokers.nodes()) {
            byId.put(n.id(), n);
        }
        return new TopicsView(brokers, new MetadataSnapshot(null, byId, List.of(), Set.of(), Set.of(), Set.of(), null,
                Map.of(), brokers), Map.of(), Set.of(), Map.of(), null);
    }

    /** The view a closed producer reads: no broker, no topic. */
    static TopicsView closed(MetadataSnapshot closed) {
        return new TopicsView(Cluster.empty(), closed, Map.of(), Set.of(), Map.of(), null);
    }

    /** The view of {@code names} as {@code s} has them over the brokers of {@code n}. O(their partitions). */
    static TopicsView build(dev.kmeta.cluster.Cluster s, KafkaNodes n, Set<String> names, ViewStats stats) {
        Map<String, TopicParts> sources = new HashMap<>();
        int partitions = 0;
        for (String name : names) {
            TopicMetadata t = s.topic(name);
            partitions += t == null ? 0 : t.partitionCount();
        }
        List<PartitionInfo> infos = new ArrayList<>(partitions);
        Map<String, Uuid> ids = new HashMap<>();
        Set<String> internal = new HashSet<>();
        Set<String> invalid = new HashSet<>();
        Set<String> unauthorized = new HashSet<>();
        for (String name : names) {
            TopicMetadata t = s.topic(name);
            if (t == null) {
                if (s.invalidTopics().contains(name)) {
                    invalid.add(name);
                }
                if (s.unauthorizedTopics().contains(name)) {
                    unauthorized.add(name);
                }
                continue;
            }
            TopicParts p = TopicParts.of(t, n, stats, false);
            sources.put(name, p);
            infos.addAll(p.infos);
            if (p.topicId != null) {
                ids.put(name, p.topicId);
            }
            if (t.isInternal()) {
                internal.add(name);
            }
            p.forgetAlone();
        }
        Node controller = n.node(s.controllerId());
        // an empty set is the JVM's shared Set.of(): waitOnMetadata asks invalidTopics() on every send, and a shared
        // object is one a cold send finds in cache, where a HashSet per view is two more misses (and heap)
        unauthorized = orShared(unauthorized);
        invalid = orShared(invalid);
        internal = orShared(internal);
        Cluster cluster = new Cluster(s.clusterId(), n.list, infos, unauthorized, invalid, internal, controller, ids);
        MetadataSnapshot snapshot = new ScopedMetadataSnapshot(s.clusterId(), n.byId, unauthorized, invalid,
                internal, controller, ids, cluster, sources);
        return new TopicsView(cluster, snapshot, Collections.unmodifiableMap(ids), names, sources, n);
    }

    /**
     * This view is the instance's shared one for its topics ({@link InstanceViews}): a send to one of them may show it
     * ({@link TopicParts#sendView}). Only a view that is kept is named so - a duplicate that lost a race, or one no
     * producer reads any more, named on a topic object, would stay reachable as long as that topic stays unchanged.
     */
    void adopt() {
        for (TopicParts p : sources.values()) {
            p.madeInto(cluster);
        }
    }

    /** No producer reads this view any more: the topics it named it on forget it (a send then finds another). */
    void drop() {
        for (TopicParts p : sources.values()) {
            p.unmade(cluster);
        }
    }

    private static Set<String> orShared(Set<String> names) {
        return names.isEmpty() ? Set.of() : names;
    }

    /** True when this view holds {@code t} - the very object - over the broker set of {@code n}. Allocation-free. */
    boolean holds(TopicMetadata t, KafkaNodes n) {
        if (nodes == null || nodes.source != n.source) {
            return false;
        }
        TopicParts p = sources.get(t.name());
        return p != null && p.source == t;
    }

    /**
     * True when this view is {@code names} exactly as {@code s} has them, over the same brokers: every topic of
     * {@code names} is in {@code s} as this view has it (the very object, or absent in both). O(names), allocation-free.
     */
    boolean holdsAll(dev.kmeta.cluster.Cluster s, KafkaNodes n, Set<String> names) {
        if (nodes == null || nodes.source != n.source) {
            return false;
        }
        for (String name : names) {
            TopicParts p = sources.get(name);
            if (s.topic(name) != (p == null ? null : p.source)) {
                return false;
            }
        }
        return true;
    }

    /**
     * True when this view is what a build of {@code names} from {@code s} would be: {@link #holdsAll} of them, and
     * no topic beyond them. O(names + this view's topics), allocation-free.
     */
    boolean isExactly(dev.kmeta.cluster.Cluster s, KafkaNodes n, Set<String> names) {
        if (!holdsAll(s, n, names)) {
            return false;
        }
        for (String held : sources.keySet()) {
            if (!names.contains(held)) {
                return false;
            }
        }
        return true;
    }

    /** Topic id to name, for the producer's Sender (made on first use). */
    Map<Uuid, String> topicNames() {
        Map<Uuid, String> m = topicNames;
        if (m == null) {
            Map<Uuid, String> byId = new HashMap<>();
            topicIds.forEach((name, id) -> byId.put(id, name));
            m = Collections.unmodifiableMap(byId);
            topicNames = m;
        }
        return m;
    }
}
