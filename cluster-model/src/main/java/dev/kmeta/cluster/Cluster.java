package dev.kmeta.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * An immutable snapshot of a Kafka cluster as one client sees it: cluster id, controller, brokers, and the topics
 * it has asked about (by name and by topic id), with the topics it may not describe and the names that are invalid.
 * Every snapshot carries a version; {@link #apply} returns the next snapshot with version + 1.
 *
 * <h2>Concurrency</h2>
 * Immutable, so any number of threads may read one snapshot without coordination. In kmeta one writer (the sender
 * thread) derives each new snapshot and publishes it with a single volatile store; readers never see a half-built
 * snapshot.
 *
 * <h2>Cost</h2>
 * Send-path lookups ({@link #partitionCount}, {@link #partition}, {@link #leader(String, int)},
 * {@link #leader(TopicMetadata, int)}, {@link #availablePartitions},
 * {@link #node}, {@link #topicId}, {@link #topicName}) are O(1) and allocate nothing: a topic is one hash, two array
 * loads and one entry away, in maps cut into shards (about 2&radic;T shards for T topics). {@link #apply} costs what
 * the delta changes: its partitions, plus for each changed name one shard of the name map and one of the id map
 * (about &radic;T / 2 entries each) and, once per apply, the arrays of shard references (about 2&radic;T each). For
 * 10,000 topics a one-topic apply allocates about 6 KB in all, where copying the maps (as kmeta once did) cost
 * 770 KB. Every other shard, and every unchanged topic, is the very same object in the new snapshot. When the
 * number of topics has grown or shrunk about 16-fold since the maps were laid out, they are laid out again,
 * O(topics), which is amortized O(1) per topic added. A new node set is the exception: leaders are re-checked
 * against it, O(partitions), still without copying unaffected topics. {@link #partitionsOnNode} is built lazily,
 * once per snapshot.
 *
 * <h2>Input rules</h2>
 * A snapshot never names a leader it cannot resolve: a partition whose leader id is not in the node set gets no
 * leader (its epoch is kept), as Kafka's client does, and is not in {@link #availablePartitions}. A delta that would
 * break an invariant (two nodes with one id) is rejected whole with {@link IllegalArgumentException}, leaving this
 * snapshot untouched.
 */
public final class Cluster {
    private static final Cluster EMPTY = new Cluster(0, null, -1, NodeIndex.EMPTY, ShardedMap.empty(),
            ShardedMap.empty(), ShardedMap.empty(), ShardedMap.empty());

    private final int version;
    private final String clusterId;
    private final int controllerId;
    private final NodeIndex nodes;
    private final ShardedMap<String, TopicMetadata> topics;
    private final ShardedMap<UUID, TopicMetadata> topicsById;
    /** Sets, held as maps from each name to itself. */
    private final ShardedMap<String, String> unauthorizedTopics;
    private final ShardedMap<String, String> invalidTopics;
    /** Built on first use; racy single-check: two threads may both build it, and both results are equal. */
    private volatile Map<Integer, List<PartitionMetadata>> partitionsByLeader;

    private Cluster(int version, String clusterId, int controllerId, NodeIndex nodes,
                    ShardedMap<String, TopicMetadata> topics, ShardedMap<UUID, TopicMetadata> topicsById,
                    ShardedMap<String, String> unauthorizedTopics, ShardedMap<String, String> invalidTopics) {
        this.version = version;
        this.clusterId = clusterId;
        this.controllerId = controllerId;
        this.nodes = nodes;
        this.topics = topics;
        this.topicsById = topicsById;
        this.unauthorizedTopics = unauthorizedTopics;
        this.invalidTopics = invalidTopics;
    }

    /** The empty snapshot, version 0: no cluster id, no nodes, no topics. */
    public static Cluster empty() {
        return EMPTY;
    }

    /**
     * Returns the snapshot that follows this one once {@code delta} is applied, with version + 1. This snapshot is
     * not changed.
     *
     * @throws IllegalArgumentException if the delta's node set has two nodes with one id
     */
    public Cluster apply(ClusterDelta delta) {
        NodeIndex newNodes = nodes;
        if (delta.nodes() != null) {
            NodeIndex candidate = new NodeIndex(delta.nodes());
            newNodes = candidate.sameNodes(nodes) ? nodes : candidate;
        }
        String newClusterId = delta.setsClusterId() ? delta.clusterId() : clusterId;
        int newController = delta.setsController() ? delta.controllerId() : controllerId;
        if (delta.changesNoTopic() && newNodes == nodes) {
            return new Cluster(version + 1, newClusterId, newController, nodes, topics, topicsById,
                    unauthorizedTopics, invalidTopics);
        }
        return new Derivation(this, newNodes).apply(delta.changes())
                .build(version + 1, newClusterId, newController);
    }

    /**
     * Derives the next snapshot's maps with editors of this one's: only the shards holding the names the delta
     * changes are copied (plus, for a new node set, those of the topics whose leaders left).
     */
    private static final class Derivation {
        private final Cluster from;
        private final NodeIndex nodes;
        private final ShardedMapEditor<String, TopicMetadata> topics;
        private final ShardedMapEditor<UUID, TopicMetadata> byId;
        private final ShardedMapEditor<String, String> unauthorized;
        private final ShardedMapEditor<String, String> invalid;

        Derivation(Cluster from, NodeIndex nodes) {
            this.from = from;
            this.nodes = nodes;
            this.topics = from.topics.edit();
            this.byId = from.topicsById.edit();
            this.unauthorized = from.unauthorizedTopics.edit();
            this.invalid = from.invalidTopics.edit();
        }

        Derivation apply(Map<String, Object> changes) {
            changes.forEach((name, change) -> {
                remove(name);
                if (change instanceof TopicMetadata) {
                    put(((TopicMetadata) change).withKnownLeaders(nodes));
                } else if (change == ClusterDelta.Mark.UNAUTHORIZED) {
                    unauthorized.put(name, name);
                } else if (change == ClusterDelta.Mark.INVALID) {
                    invalid.put(name, name);
                }
            });
            if (nodes != from.nodes) {
                recheckLeaders();
            }
            return this;
        }

        /**
         * Drops leaders the new node set does not have from the topics the delta left alone (the ones it put were
         * checked already). O(partitions): the one apply that walks every topic.
         */
        private void recheckLeaders() {
            for (TopicMetadata t : from.topics.values()) {
                if (topics.get(t.name()) == t) {
                    TopicMetadata checked = t.withKnownLeaders(nodes);
                    if (checked != t) {
                        remove(t.name());
                        put(checked);
                    }
                }
            }
        }

        private void remove(String name) {
            TopicMetadata old = topics.remove(name);
            if (old != null && old.topicId() != null && byId.get(old.topicId()) == old) {
                byId.remove(old.topicId());
            }
            unauthorized.remove(name);
            invalid.remove(name);
        }

        private void put(TopicMetadata t) {
            topics.put(t.name(), t);
            if (t.topicId() != null) {
                byId.put(t.topicId(), t);
            }
        }

        Cluster build(int version, String clusterId, int controllerId) {
            return new Cluster(version, clusterId, controllerId, nodes, topics.build(), byId.build(),
                    unauthorized.build(), invalid.build());
        }
    }

    /** The snapshot's version: 0 for the empty snapshot, + 1 for every {@link #apply}. */
    public int version() {
        return version;
    }

    /** The cluster id the brokers reported, or null. */
    public String clusterId() {
        return clusterId;
    }

    /** The controller's broker id, or -1. */
    public int controllerId() {
        return controllerId;
    }

    /** The controller node, or null when unknown or not in the node set. */
    public Node controller() {
        return nodes.get(controllerId);
    }

    /** The node with this broker id, or null. O(1), allocation-free. */
    public Node node(int id) {
        return nodes.get(id);
    }

    /** All nodes, ordered by id. */
    public List<Node> nodes() {
        return nodes.all();
    }

    /** The topic, or null when this snapshot has no metadata for it. O(1), allocation-free. */
    public TopicMetadata topic(String name) {
        return topics.get(name);
    }

    /** The topic with this id, or null. */
    public TopicMetadata topic(UUID topicId) {
        return topicsById.get(topicId);
    }

    /** The names of the topics this snapshot has metadata for (unmodifiable). */
    public Set<String> topicNames() {
        return topics.keySet();
    }

    /** The number of partitions of the topic, or -1 when the topic is not in this snapshot. */
    public int partitionCount(String topic) {
        TopicMetadata t = topics.get(topic);
        return t == null ? -1 : t.partitionCount();
    }

    /** The partition, or null when the topic or the index is unknown. */
    public PartitionMetadata partition(String topic, int partition) {
        TopicMetadata t = topics.get(topic);
        return t == null ? null : t.partition(partition);
    }

    /** The partition's leader, or null when unknown or leaderless. */
    public Node leader(String topic, int partition) {
        PartitionMetadata p = partition(topic, partition);
        return p == null ? null : nodes.get(p.leaderId());
    }

    /**
     * The leader of partition {@code partition} of {@code topic}, a topic object this snapshot holds (from
     * {@link #topic(String)}), or null when the index is out of range or the partition is leaderless: the send path's
     * "where does this record go" with the one name lookup already done. O(1), allocation-free. The leader id is
     * resolved in this snapshot's nodes, so a topic object from another snapshot gets this snapshot's node for it.
     */
    public Node leader(TopicMetadata topic, int partition) {
        PartitionMetadata p = topic.partition(partition);
        return p == null ? null : nodes.get(p.leaderId());
    }

    /** The topic's partitions that have a leader (precomputed), or an empty list for an unknown topic. */
    public List<PartitionMetadata> availablePartitions(String topic) {
        TopicMetadata t = topics.get(topic);
        return t == null ? Collections.emptyList() : t.availablePartitions();
    }

    /** The topic id of the named topic, or null. */
    public UUID topicId(String topic) {
        TopicMetadata t = topics.get(topic);
        return t == null ? null : t.topicId();
    }

    /** The name of the topic with this id, or null. */
    public String topicName(UUID topicId) {
        TopicMetadata t = topicsById.get(topicId);
        return t == null ? null : t.name();
    }

    /** Topics the brokers said this client may not describe (unmodifiable). */
    public Set<String> unauthorizedTopics() {
        return unauthorizedTopics.keySet();
    }

    /** Topic names the brokers rejected as invalid (unmodifiable). */
    public Set<String> invalidTopics() {
        return invalidTopics.keySet();
    }

    /** The partitions this node leads, across all topics; the index is built on first call, once per snapshot. */
    public List<PartitionMetadata> partitionsOnNode(int nodeId) {
        Map<Integer, List<PartitionMetadata>> index = partitionsByLeader;
        if (index == null) {
            index = indexByLeader();
            partitionsByLeader = index;
        }
        return index.getOrDefault(nodeId, Collections.emptyList());
    }

    private Map<Integer, List<PartitionMetadata>> indexByLeader() {
        Map<Integer, List<PartitionMetadata>> index = new HashMap<>();
        for (TopicMetadata t : topics.values()) {
            for (PartitionMetadata p : t.availablePartitions()) {
                index.computeIfAbsent(p.leaderId(), id -> new ArrayList<>()).add(p);
            }
        }
        index.replaceAll((id, list) -> Collections.unmodifiableList(list));
        return Collections.unmodifiableMap(index);
    }

    /**
     * True when both snapshots describe the same state (cluster id, controller, nodes, topics, unauthorized and
     * invalid names), whatever their versions.
     */
    public boolean contentEquals(Cluster other) {
        return other != null && Objects.equals(clusterId, other.clusterId) && controllerId == other.controllerId
                && nodes.sameNodes(other.nodes) && topics.equals(other.topics)
                && unauthorizedTopics.equals(other.unauthorizedTopics) && invalidTopics.equals(other.invalidTopics);
    }

    @Override
    public String toString() {
        return "Cluster(version=" + version + ", id=" + clusterId + ", controller=" + controllerId + ", nodes="
                + nodes.size() + ", topics=" + topics.size() + ")";
    }
}
