package dev.kmeta.cli;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What changed between two snapshots, as {@code kmeta watch} prints it, one line per change: cluster id, controller
 * (optionally), brokers joining, leaving or moving, topics appearing or going, partition counts, leaders (with epochs)
 * and ISRs. From {@link Cluster#empty()} it describes the whole snapshot (the first lines of a watch). Stateless and
 * thread-safe.
 *
 * <p>The snapshot's controller id is what the Metadata answers reported: the controller on ZooKeeper-era brokers, a
 * random live broker on KRaft. {@code watch} leaves it out ({@code reportedController = false}) and shows the
 * controller through {@link ControllerView} instead.
 */
final class ClusterDiff {
    private ClusterDiff() {
    }

    /**
     * The changes from {@code before} to {@code after}, with the reported controller id taken for the controller
     * (right on ZooKeeper-era brokers only); see {@link #changes(Cluster, Cluster, boolean)}.
     */
    static List<String> changes(Cluster before, Cluster after) {
        return changes(before, after, true);
    }

    /**
     * The changes from {@code before} to {@code after}, in a stable order; empty when nothing shown changed.
     *
     * @param reportedController whether to show the controller id the Metadata answers reported, and its changes
     */
    static List<String> changes(Cluster before, Cluster after, boolean reportedController) {
        boolean initial = before.nodes().isEmpty() && before.clusterId() == null;
        List<String> lines = new ArrayList<>();
        clusterId(before, after, initial, reportedController, lines);
        brokers(before, after, initial, lines);
        if (reportedController && !initial && before.controllerId() != after.controllerId()
                && after.controllerId() >= 0) {
            lines.add("controller " + idOrNone(before.controllerId()) + " -> " + after.controllerId());
        }
        Set<String> names = new TreeSet<>(before.topicNames());
        names.addAll(after.topicNames());
        for (String name : names) {
            topic(name, before.topic(name), after.topic(name), lines);
        }
        refused(before.unauthorizedTopics(), after.unauthorizedTopics(), "not authorized", lines);
        refused(before.invalidTopics(), after.invalidTopics(), "invalid", lines);
        return lines;
    }

    private static void clusterId(Cluster before, Cluster after, boolean initial, boolean reportedController,
                                  List<String> lines) {
        if (Objects.equals(before.clusterId(), after.clusterId()) || after.clusterId() == null) {
            return;
        }
        lines.add(initial || before.clusterId() == null ? "cluster id " + after.clusterId()
                + (reportedController && after.controllerId() >= 0 ? ", controller " + after.controllerId() : "")
                : "cluster id changed: " + before.clusterId() + " -> " + after.clusterId()
                + " (the bootstrap now leads to another cluster)");
    }

    private static void brokers(Cluster before, Cluster after, boolean initial, List<String> lines) {
        TreeMap<Integer, Node> old = byId(before.nodes());
        TreeMap<Integer, Node> now = byId(after.nodes());
        for (Node n : now.values()) {
            Node was = old.get(n.id());
            if (was == null) {
                lines.add("broker " + n.id() + (initial ? " at " : " joined at ") + where(n));
            } else if (!was.equals(n)) {
                lines.add("broker " + n.id() + " moved: " + where(was) + " -> " + where(n));
            }
        }
        if (after.nodes().isEmpty()) {
            return; // an answer without brokers says nothing about them (kmeta keeps the last known set anyway)
        }
        for (Node n : old.values()) {
            if (!now.containsKey(n.id())) {
                lines.add("broker " + n.id() + " left (was at " + where(n) + ")");
            }
        }
    }

    private static void topic(String name, TopicMetadata was, TopicMetadata now, List<String> lines) {
        if (now == null) {
            lines.add("topic " + name + " is gone (deleted, or no longer answered for)");
            return;
        }
        if (was == null) {
            lines.add("topic " + name + ": " + now.partitionCount() + " partition(s), leaders " + leaders(now));
            return;
        }
        if (was.topicId() != null && now.topicId() != null && !was.topicId().equals(now.topicId())) {
            lines.add("topic " + name + " was re-created: id " + was.topicId() + " -> " + now.topicId());
        }
        if (was.partitionCount() != now.partitionCount()) {
            lines.add("topic " + name + ": partitions " + was.partitionCount() + " -> " + now.partitionCount());
        }
        for (PartitionMetadata p : now.partitions()) {
            if (p == null) {
                continue; // a hole in a sparse answer
            }
            partition(name, was.partition(p.partition()), p, lines);
        }
    }

    private static void partition(String topic, PartitionMetadata was, PartitionMetadata now, List<String> lines) {
        String tp = topic + "-" + now.partition();
        if (was == null) {
            lines.add(tp + ": new partition, leader " + idOrNone(now.leaderId()) + epoch(now.leaderEpoch()));
            return;
        }
        if (was.leaderId() != now.leaderId()) {
            lines.add(tp + ": leader " + idOrNone(was.leaderId()) + " -> " + idOrNone(now.leaderId())
                    + (was.leaderEpoch() != now.leaderEpoch() ? " (epoch " + was.leaderEpoch() + " -> "
                    + now.leaderEpoch() + ")" : ""));
        } else if (was.leaderEpoch() != now.leaderEpoch() && now.leaderEpoch() >= 0) {
            lines.add(tp + ": leader " + idOrNone(now.leaderId()) + " re-elected (epoch " + was.leaderEpoch()
                    + " -> " + now.leaderEpoch() + ")");
        }
        if (!sameSet(was.inSyncReplicas(), now.inSyncReplicas())) {
            lines.add(tp + ": isr " + Arrays.toString(was.inSyncReplicas()) + " -> "
                    + Arrays.toString(now.inSyncReplicas()));
        }
    }

    private static void refused(Set<String> before, Set<String> after, String what, List<String> lines) {
        for (String name : new TreeSet<>(after)) {
            if (!before.contains(name)) {
                lines.add("topic " + name + ": " + what);
            }
        }
    }

    private static String leaders(TopicMetadata t) {
        StringBuilder sb = new StringBuilder();
        for (PartitionMetadata p : t.partitions()) {
            if (p == null) {
                continue; // a hole in a sparse answer
            }
            sb.append(sb.length() == 0 ? "" : " ").append(p.partition()).append(':')
                    .append(idOrNone(p.leaderId()));
        }
        return sb.length() == 0 ? "(none)" : sb.toString();
    }

    private static boolean sameSet(int[] a, int[] b) {
        int[] x = a.clone();
        int[] y = b.clone();
        Arrays.sort(x);
        Arrays.sort(y);
        return Arrays.equals(x, y);
    }

    private static TreeMap<Integer, Node> byId(List<Node> nodes) {
        TreeMap<Integer, Node> map = new TreeMap<>();
        for (Node n : nodes) {
            map.put(n.id(), n);
        }
        return map;
    }

    private static String where(Node n) {
        return n.address() + (n.rack() == null ? "" : " (rack " + n.rack() + ")");
    }

    private static String idOrNone(int id) {
        return id < 0 ? "none" : Integer.toString(id);
    }

    private static String epoch(int epoch) {
        return epoch < 0 ? "" : " (epoch " + epoch + ")";
    }
}
