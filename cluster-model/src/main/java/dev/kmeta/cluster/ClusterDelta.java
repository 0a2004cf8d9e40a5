package dev.kmeta.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A change to a {@link Cluster}: topics to add or replace, topics to remove, topics now known to be unauthorized or
 * invalid, and optionally a new node set, cluster id or controller. Applied with {@link Cluster#apply}.
 *
 * <p>Immutable and thread-safe once built; the {@link Builder} is not thread-safe. Within one builder the last word
 * on a topic name wins: putting a topic after removing it puts it, removing it after putting it removes it.
 */
public final class ClusterDelta {
    /** Marks a topic name as removed, unauthorized or invalid in {@link #changes}. */
    enum Mark { REMOVED, UNAUTHORIZED, INVALID }

    private final boolean clusterIdSet;
    private final String clusterId;
    private final boolean controllerSet;
    private final int controllerId;
    private final List<Node> nodes;
    private final Map<String, Object> changes;

    private ClusterDelta(Builder b) {
        this.clusterIdSet = b.clusterIdSet;
        this.clusterId = b.clusterId;
        this.controllerSet = b.controllerSet;
        this.controllerId = b.controllerId;
        this.nodes = b.nodes;
        this.changes = Collections.unmodifiableMap(new LinkedHashMap<>(b.changes));
    }

    /** A new builder for an empty delta. */
    public static Builder builder() {
        return new Builder();
    }

    /** True when the delta sets the cluster id. */
    public boolean setsClusterId() {
        return clusterIdSet;
    }

    /** The cluster id it sets (may be null), meaningful when {@link #setsClusterId()}. */
    public String clusterId() {
        return clusterId;
    }

    /** True when the delta sets the controller. */
    public boolean setsController() {
        return controllerSet;
    }

    /** The controller id it sets, meaningful when {@link #setsController()}. */
    public int controllerId() {
        return controllerId;
    }

    /** The new node set, or null when the delta keeps the current one. */
    public List<Node> nodes() {
        return nodes;
    }

    /** The topics it adds or replaces, by name. */
    public Map<String, TopicMetadata> topics() {
        Map<String, TopicMetadata> out = new LinkedHashMap<>();
        changes.forEach((name, change) -> {
            if (change instanceof TopicMetadata) {
                out.put(name, (TopicMetadata) change);
            }
        });
        return out;
    }

    /** Names changed by this delta, each to a {@link TopicMetadata} or a {@link Mark}. */
    Map<String, Object> changes() {
        return changes;
    }

    /** True when the delta changes no topic (it may still change nodes, cluster id or controller). */
    public boolean changesNoTopic() {
        return changes.isEmpty();
    }

    @Override
    public String toString() {
        return "ClusterDelta(" + changes.size() + " topic changes" + (nodes == null ? "" : ", " + nodes.size()
                + " nodes") + (clusterIdSet ? ", clusterId=" + clusterId : "") + ")";
    }

    /** Builds a {@link ClusterDelta}. Not thread-safe. */
    public static final class Builder {
        private boolean clusterIdSet;
        private String clusterId;
        private boolean controllerSet;
        private int controllerId = -1;
        private List<Node> nodes;
        private final Map<String, Object> changes = new LinkedHashMap<>();

        private Builder() {
        }

        /** Sets the cluster id (null when the broker sent none). */
        public Builder clusterId(String id) {
            this.clusterIdSet = true;
            this.clusterId = id;
            return this;
        }

        /** Sets the controller id (negative for none). */
        public Builder controllerId(int id) {
            this.controllerSet = true;
            this.controllerId = id < 0 ? -1 : id;
            return this;
        }

        /**
         * Replaces the node set.
         *
         * @throws IllegalArgumentException (at {@link Cluster#apply}) if two nodes share an id
         */
        public Builder nodes(Collection<Node> newNodes) {
            this.nodes = Collections.unmodifiableList(new ArrayList<>(newNodes));
            return this;
        }

        /** Adds or replaces a topic. */
        public Builder putTopic(TopicMetadata topic) {
            changes.put(topic.name(), topic);
            return this;
        }

        /** Removes a topic (a no-op if it is not there). */
        public Builder removeTopic(String name) {
            changes.put(Objects.requireNonNull(name, "name"), Mark.REMOVED);
            return this;
        }

        /** Removes a topic's metadata and records that this client may not describe it. */
        public Builder unauthorizedTopic(String name) {
            changes.put(Objects.requireNonNull(name, "name"), Mark.UNAUTHORIZED);
            return this;
        }

        /** Removes a topic's metadata and records that its name is invalid. */
        public Builder invalidTopic(String name) {
            changes.put(Objects.requireNonNull(name, "name"), Mark.INVALID);
            return this;
        }

        /** A copy of the names this builder changes so far. */
        public Set<String> changedNames() {
            return Collections.unmodifiableSet(new LinkedHashSet<>(changes.keySet()));
        }

        /** Builds the delta; the builder can be reused afterwards. */
        public ClusterDelta build() {
            return new ClusterDelta(this);
        }
    }
}
