package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.testkit.MetadataAnswers;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The translator shares the replica id arrays of partitions that list the same ids (one answer, 3 brokers: 6
 * orderings of 3 replicas at most), and every partition still reads its own ids. Without the sharing each of the
 * 2,000 partitions below holds its own {@code int[]} (a partition's retained bytes in a 10,000-partition cluster: 32 of
 * kmeta's ~80).
 */
class ResponseTranslatorSharedIdsTest {
    private static final int TOPICS = 20;
    private static final int PARTITIONS = 100;

    /** Partition p of topic t: replicas rotated from broker (t + p) % 3, every 5th in the other direction. */
    private static List<Integer> replicas(int t, int p) {
        int first = (t + p) % 3;
        return p % 5 == 0 ? List.of(first, (first + 2) % 3, (first + 1) % 3)
                : List.of(first, (first + 1) % 3, (first + 2) % 3);
    }

    /** Its ISR: the replicas, but for every 7th partition, whose broker 2 is out of sync. */
    private static List<Integer> isr(int t, int p) {
        List<Integer> ids = new ArrayList<>(replicas(t, p));
        if (p % 7 == 0) {
            ids.remove(Integer.valueOf(2));
        }
        return ids;
    }

    private static MetadataResponse answer() {
        MetadataAnswers answers = MetadataAnswers.cluster("c1").controller(0);
        for (int id = 0; id < 3; id++) {
            answers.broker(id, "127.0.0.1", 9092 + id);
        }
        for (int t = 0; t < TOPICS; t++) {
            for (int p = 0; p < PARTITIONS; p++) {
                answers.partition("t" + t, new Uuid(7, t), p, (t + p) % 3, 3,
                        replicas(t, p).stream().mapToInt(Integer::intValue).toArray());
            }
        }
        for (MetadataResponseTopic topic : answers.data().topics()) { // ISRs apart from the replicas where they differ
            int t = Integer.parseInt(topic.name().substring(1));
            for (MetadataResponsePartition p : topic.partitions()) {
                p.isrNodes().retainAll(isr(t, p.partitionIndex()));
            }
        }
        return answers.response();
    }

    private static Object field(PartitionMetadata p, String name) throws ReflectiveOperationException {
        Field f = PartitionMetadata.class.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(p);
    }

    @Test
    void partitionsListingTheSameIdsShareOneArrayAndEachReadsItsOwnIds() throws Exception {
        Map<String, TopicMetadata> topics = ResponseTranslator.translate(answer(), Cluster.empty()).topics();
        Set<Object> replicaArrays = Collections.newSetFromMap(new IdentityHashMap<>());
        Set<Object> isrArrays = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int t = 0; t < TOPICS; t++) {
            TopicMetadata topic = topics.get("t" + t);
            for (int p = 0; p < PARTITIONS; p++) {
                PartitionMetadata pm = topic.partition(p);
                List<Integer> read = new ArrayList<>();
                for (int i = 0; i < pm.replicaCount(); i++) {
                    read.add(pm.replica(i));
                }
                assertEquals(replicas(t, p), read, "t" + t + "-" + p + "'s replicas");
                List<Integer> readIsr = new ArrayList<>();
                for (int i = 0; i < pm.inSyncReplicaCount(); i++) {
                    readIsr.add(pm.inSyncReplica(i));
                }
                assertEquals(isr(t, p), readIsr, "t" + t + "-" + p + "'s ISR");
                replicaArrays.add(field(pm, "replicas"));
                isrArrays.add(field(pm, "isr"));
            }
        }
        assertTrue(replicaArrays.size() <= 6, "3 brokers, 6 orderings at most: " + replicaArrays.size()
                + " replica arrays for " + TOPICS * PARTITIONS + " partitions");
        assertTrue(isrArrays.size() <= 6 + 6, "ISR equal to the replicas is the replicas' array, the others shared: "
                + isrArrays.size());
    }
}
