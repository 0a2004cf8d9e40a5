package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A batch of KIP-951 leader hints folded into one delta: a hint is applied when its epoch is newer than the cached
 * one and its leader's endpoint is known (from the hint or the snapshot). Not thread-safe: sender only.
 */
final class LeaderHints {
    private enum Outcome { APPLIED, STALE, UNUSABLE }

    private final Cluster base;
    private final Map<String, TopicMetadata> updated = new LinkedHashMap<>();
    private final Map<Integer, Node> endpoints = new LinkedHashMap<>();
    private Outcome last;

    LeaderHints(Cluster base) {
        this.base = base;
    }

    /** True when applied. */
    boolean apply(LeaderHint h) {
        last = decide(h);
        return last == Outcome.APPLIED;
    }

    /** True when the last hint was not stale but unusable: the topic should be refreshed instead. */
    boolean wantsRefresh(LeaderHint h) {
        return last == Outcome.UNUSABLE;
    }

    private Outcome decide(LeaderHint h) {
        TopicMetadata t = updated.containsKey(h.topic) ? updated.get(h.topic) : base.topic(h.topic);
        PartitionMetadata p = t == null ? null : t.partition(h.partition);
        if (p == null || h.leaderId < 0 || h.leaderEpoch < 0) {
            return Outcome.UNUSABLE;
        }
        if (p.hasLeaderEpochAtLeast(h.leaderEpoch)) {
            return Outcome.STALE;
        }
        Node known = endpoints.containsKey(h.leaderId) ? endpoints.get(h.leaderId) : base.node(h.leaderId);
        if (h.endpoint != null && h.endpoint.id() != h.leaderId || h.endpoint == null && known == null) {
            return Outcome.UNUSABLE;
        }
        if (h.endpoint != null && !h.endpoint.equals(known)) {
            endpoints.put(h.leaderId, h.endpoint);
        }
        updated.put(h.topic, t.withPartition(p.withLeader(h.leaderId, h.leaderEpoch)));
        return Outcome.APPLIED;
    }

    boolean isEmpty() {
        return updated.isEmpty();
    }

    Set<String> topics() {
        return updated.keySet();
    }

    ClusterDelta delta() {
        ClusterDelta.Builder delta = ClusterDelta.builder();
        if (!endpoints.isEmpty()) {
            List<Node> nodes = new ArrayList<>();
            for (Node n : base.nodes()) {
                if (!endpoints.containsKey(n.id())) {
                    nodes.add(n);
                }
            }
            nodes.addAll(endpoints.values());
            delta.nodes(nodes);
        }
        updated.values().forEach(delta::putTopic);
        return delta.build();
    }
}
