package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import org.slf4j.Logger;

import java.util.Set;
import java.util.TreeSet;

/**
 * One INFO line per change in the state of the world - cluster id, broker set, leaders moved in bulk - so an
 * operator reading the log sees what happened without DEBUG. Stateless.
 */
final class WorldChanges {
    private WorldChanges() {
    }

    static void log(Logger log, String clientId, Cluster before, Cluster next, ResponseMerger.Result r,
                    Counters counters) {
        if (r.clusterIdChanged) {
            counters.clusterIdChanges.incrementAndGet();
            log.warn("[{}] cluster id changed from {} to {}: the bootstrap now leads to another cluster; metadata of "
                    + "the old one was dropped", clientId, before.clusterId(), next.clusterId());
        } else if (before.clusterId() == null && next.clusterId() != null) {
            log.info("[{}] connected to cluster {}", clientId, next.clusterId());
        }
        if (!next.nodes().equals(before.nodes())) {
            log.info("[{}] brokers now {}{}", clientId, ids(next), diff(before, next));
        }
        if (r.leadersMoved > 0) {
            log.info("[{}] {} partition leader(s) moved", clientId, r.leadersMoved);
        }
    }

    private static Set<Integer> ids(Cluster c) {
        Set<Integer> ids = new TreeSet<>();
        for (Node n : c.nodes()) {
            ids.add(n.id());
        }
        return ids;
    }

    private static String diff(Cluster before, Cluster next) {
        Set<Integer> added = ids(next);
        added.removeAll(ids(before));
        Set<Integer> gone = ids(before);
        gone.removeAll(ids(next));
        return (added.isEmpty() ? "" : " (joined " + added + ")") + (gone.isEmpty() ? "" : " (left " + gone + ")");
    }
}
