package dev.kmeta.cli;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * One topic of a snapshot as {@code kmeta lookup} prints it: a table for people, JSON for scripts.
 * Stateless and thread-safe.
 */
final class PartitionTable {
    private static final String[] HEADER = {"PARTITION", "LEADER", "LEADER-ADDRESS", "EPOCH", "REPLICAS", "ISR",
            "OFFLINE"};

    private PartitionTable() {
    }

    /** A title line, then one aligned row per partition. */
    static String table(Cluster cluster, TopicMetadata topic) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (PartitionMetadata p : topic.partitions()) {
            if (p == null) {
                continue; // a hole in a sparse answer
            }
            Node leader = p.hasLeader() ? cluster.node(p.leaderId()) : null;
            rows.add(new String[] {
                Integer.toString(p.partition()),
                p.hasLeader() ? Integer.toString(p.leaderId()) : "none",
                leader == null ? "-" : leader.address(),
                p.leaderEpoch() < 0 ? "-" : Integer.toString(p.leaderEpoch()),
                list(p.replicas()),
                list(p.inSyncReplicas()),
                list(p.offlineReplicas())});
        }
        StringBuilder sb = new StringBuilder();
        sb.append("Topic ").append(topic.name()).append(": ").append(topic.partitionCount()).append(" partition(s)")
                .append(topic.topicId() == null ? "" : ", id " + kafkaId(topic.topicId()))
                .append(", cluster ").append(cluster.clusterId()).append(System.lineSeparator());
        appendAligned(sb, rows);
        return sb.toString();
    }

    /** {@code {"topic":..., "topicId":..., "clusterId":..., "partitions":[...]}} on one line. */
    static String json(Cluster cluster, TopicMetadata topic) {
        StringBuilder sb = new StringBuilder("{\"topic\":").append(Json.string(topic.name()))
                .append(",\"topicId\":").append(Json.string(topic.topicId() == null ? null
                        : kafkaId(topic.topicId())))
                .append(",\"clusterId\":").append(Json.string(cluster.clusterId()))
                .append(",\"partitionCount\":").append(topic.partitionCount())
                .append(",\"partitions\":[");
        String sep = "";
        for (PartitionMetadata p : topic.partitions()) {
            if (p == null) {
                continue; // a hole in a sparse answer
            }
            Node leader = p.hasLeader() ? cluster.node(p.leaderId()) : null;
            sb.append(sep).append("{\"partition\":").append(p.partition())
                    .append(",\"leader\":").append(leader == null ? "null" : "{\"id\":" + leader.id()
                            + ",\"host\":" + Json.string(leader.host()) + ",\"port\":" + leader.port() + "}")
                    .append(",\"leaderEpoch\":").append(p.leaderEpoch())
                    .append(",\"replicas\":").append(Json.ints(p.replicas()))
                    .append(",\"isr\":").append(Json.ints(p.inSyncReplicas()))
                    .append(",\"offlineReplicas\":").append(Json.ints(p.offlineReplicas()))
                    .append('}');
            sep = ",";
        }
        return sb.append("]}").toString();
    }

    /** A topic id as Kafka's tools print it (URL-safe base64, e.g. {@code kafka-topics --describe}). */
    static String kafkaId(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits()).toString();
    }

    private static String list(int[] ids) {
        if (ids.length == 0) {
            return "-";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < ids.length; i++) {
            sb.append(i == 0 ? "" : ",").append(ids[i]);
        }
        return sb.toString();
    }

    private static void appendAligned(StringBuilder sb, List<String[]> rows) {
        int[] widths = new int[HEADER.length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                line.append(row[i]).append(" ".repeat(i == row.length - 1 ? 0 : widths[i] - row[i].length() + 2));
            }
            sb.append(line.toString().stripTrailing()).append(System.lineSeparator());
        }
    }
}
