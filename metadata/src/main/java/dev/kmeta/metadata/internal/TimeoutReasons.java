package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;

import java.util.Arrays;

/** Says in words why a wait for a topic ended without an answer, from what the manager saw. Stateless. */
final class TimeoutReasons {
    private TimeoutReasons() {
    }

    static String describe(Cluster c, String topic, int partition, TopicEntry e) {
        if (c.nodes().isEmpty()) {
            return "no broker has answered a metadata request yet";
        }
        TopicMetadata t = c.topic(topic);
        if (t == null) {
            return unknownTopic(e);
        }
        PartitionMetadata p = t.partition(partition);
        if (p == null) {
            return "the topic has " + t.partitionCount() + " partitions";
        }
        return "the partition has no leader (replicas " + Arrays.toString(p.replicas()) + ", offline "
                + Arrays.toString(p.offlineReplicas()) + ")";
    }

    private static String unknownTopic(TopicEntry e) {
        if (e.lastErrorCode == ResponseMerger.UNKNOWN_TOPIC_OR_PARTITION) {
            return "the brokers answered UNKNOWN_TOPIC_OR_PARTITION " + e.errorsInARow
                    + " time(s) in a row: the topic does not exist";
        }
        if (e.lastErrorCode != 0) {
            return "the brokers answered error code " + e.lastErrorCode + " for it " + e.errorsInARow + " time(s)";
        }
        return e.responses == 0 ? "no answer about the topic has arrived yet"
                : "the brokers' answers did not describe it";
    }
}
