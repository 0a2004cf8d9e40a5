package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The partitions of an instance's snapshots that have no leader, each with when it was first seen without one
 * (issue 39: stats and health list them with how long). A partition is looked at again only in a snapshot newer than
 * the last one read; unchanged topics are shared between snapshots, so a topic whose entry is the same object as
 * before is skipped. Thread-safe (one lock; readers are stats, health and a producer's network thread, never a send).
 */
public final class LeaderlessSince {
    private Cluster seen;
    private final Map<String, TopicMetadata> entries = new HashMap<>();
    private final Map<String, Long> since = new HashMap<>();

    /** The partitions ({@code topic-partition}) without a leader in {@code c}, each with ms since first seen so. */
    public synchronized Map<String, Long> at(Cluster c, long nowMs) {
        if (c != seen) {
            seen = c;
            entries.keySet().retainAll(c.topicNames());
            since.keySet().removeIf(tp -> !c.topicNames().contains(tp.substring(0, tp.lastIndexOf('-'))));
            for (String topic : c.topicNames()) {
                TopicMetadata t = c.topic(topic);
                if (entries.get(topic) == t) {
                    continue;
                }
                entries.put(topic, t);
                for (int i = 0; i < t.partitionCount(); i++) {
                    PartitionMetadata p = t.partition(i);
                    String tp = topic + "-" + i;
                    if (p == null || !p.hasLeader() || c.node(p.leaderId()) == null) {
                        since.putIfAbsent(tp, nowMs);
                    } else {
                        since.remove(tp);
                    }
                }
            }
        }
        Map<String, Long> out = new TreeMap<>();
        since.forEach((tp, ms) -> out.put(tp, nowMs - ms));
        return out;
    }
}
