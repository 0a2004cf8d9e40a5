package dev.kmeta.producer.internal.view;

import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kafka's {@link Node}s for one kmeta broker set (one {@code dev.kmeta.cluster.Cluster#nodes()} list, which kmeta
 * shares between snapshots while the brokers do not change), made once and shared by every Kafka view built over that
 * broker set: the {@code PartitionInfo}s of every topic point at these very objects.
 *
 * <p>Immutable and thread-safe.
 */
final class KafkaNodes {
    private static final Node[] NONE = new Node[0];

    /** The kmeta list these nodes were made from (its identity is the broker set's). */
    final List<dev.kmeta.cluster.Node> source;
    final List<Node> list;
    final Map<Integer, Node> byId;
    /** A view with these brokers and no topic (a send whose topic is not known yet, the nodes the network client asks for). */
    final Cluster withoutTopics;

    KafkaNodes(List<dev.kmeta.cluster.Node> source, String clusterId) {
        this.source = source;
        List<Node> nodes = new ArrayList<>(source.size());
        Map<Integer, Node> ids = new HashMap<>();
        for (dev.kmeta.cluster.Node n : source) {
            Node k = new Node(n.id(), n.host(), n.port(), n.rack());
            nodes.add(k);
            ids.put(n.id(), k);
        }
        this.list = Collections.unmodifiableList(nodes);
        this.byId = Collections.unmodifiableMap(ids);
        this.withoutTopics = new Cluster(clusterId, list, List.of(), Set.of(), Set.of());
    }

    /** The node with this id, or null. */
    Node node(int id) {
        return id < 0 ? null : byId.get(id);
    }

    /**
     * The nodes of {@code ids}; an id this broker set does not have becomes a placeholder without an address (as
     * kafka-clients does for a replica on a broker the answer did not list).
     */
    Node[] nodes(int[] ids) {
        if (ids.length == 0) {
            return NONE;
        }
        Node[] out = new Node[ids.length];
        for (int i = 0; i < ids.length; i++) {
            Node n = byId.get(ids[i]);
            out[i] = n != null ? n : new Node(ids[i], "", -1);
        }
        return out;
    }
}
