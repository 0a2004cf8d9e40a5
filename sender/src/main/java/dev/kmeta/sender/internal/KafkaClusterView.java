package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.Uuid;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Builds an {@link org.apache.kafka.common.Cluster} view of a kmeta {@link Cluster}, so existing
 * {@code Partitioner}s work unchanged. Built lazily and cached per snapshot: a caller that asks for the view of the
 * same snapshot twice gets the same object. Kafka's {@code Cluster} indexes everything eagerly (O(partitions)), so
 * the view is for code that needs Kafka's type; the send path should use the kmeta snapshot.
 *
 * <p>Thread-safe: the cache is one volatile reference to an immutable pair; two threads racing may both build the
 * view, and both results are equal.
 */
public final class KafkaClusterView {
    private volatile Cached cached;

    private static final class Cached {
        final Cluster source;
        final org.apache.kafka.common.Cluster view;

        Cached(Cluster source, org.apache.kafka.common.Cluster view) {
            this.source = source;
            this.view = view;
        }
    }

    /** The view of {@code snapshot}, built once per snapshot. */
    public org.apache.kafka.common.Cluster of(Cluster snapshot) {
        Cached c = cached;
        if (c != null && c.source == snapshot) {
            return c.view;
        }
        org.apache.kafka.common.Cluster view = build(snapshot);
        cached = new Cached(snapshot, view);
        return view;
    }

    /** Builds a fresh view (no cache). */
    public static org.apache.kafka.common.Cluster build(Cluster snapshot) {
        Map<Integer, org.apache.kafka.common.Node> nodes = new HashMap<>();
        for (Node n : snapshot.nodes()) {
            nodes.put(n.id(), new org.apache.kafka.common.Node(n.id(), n.host(), n.port(), n.rack()));
        }
        List<PartitionInfo> partitions = new ArrayList<>();
        Set<String> internal = new HashSet<>();
        Map<String, Uuid> topicIds = new HashMap<>();
        for (String name : snapshot.topicNames()) {
            TopicMetadata t = snapshot.topic(name);
            if (t.isInternal()) {
                internal.add(name);
            }
            UUID id = t.topicId();
            if (id != null) {
                topicIds.put(name, new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits()));
            }
            for (PartitionMetadata p : t.partitions()) {
                partitions.add(new PartitionInfo(name, p.partition(), nodes.get(p.leaderId()),
                        nodes(p.replicas(), nodes), nodes(p.inSyncReplicas(), nodes),
                        nodes(p.offlineReplicas(), nodes)));
            }
        }
        return new org.apache.kafka.common.Cluster(snapshot.clusterId(), nodes.values(), partitions,
                snapshot.unauthorizedTopics(), snapshot.invalidTopics(), internal,
                nodes.get(snapshot.controllerId()), topicIds);
    }

    private static org.apache.kafka.common.Node[] nodes(int[] ids, Map<Integer, org.apache.kafka.common.Node> nodes) {
        org.apache.kafka.common.Node[] out = new org.apache.kafka.common.Node[ids.length];
        for (int i = 0; i < ids.length; i++) {
            org.apache.kafka.common.Node n = nodes.get(ids[i]);
            out[i] = n != null ? n : new org.apache.kafka.common.Node(ids[i], "", -1);
        }
        return out;
    }
}
