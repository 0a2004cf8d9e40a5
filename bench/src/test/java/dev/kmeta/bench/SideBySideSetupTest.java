package dev.kmeta.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.internal.MergePath;
import dev.kmeta.sender.internal.ResponseTranslator;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.MetadataResponseData;
import org.junit.jupiter.api.Test;

/** The side-by-side benchmarks feed both implementations the same answer; they must then agree. */
class SideBySideSetupTest {
    private static final int[] SAMPLE = {0, 1, 499, 998, 999};

    @Test
    void sendPathSetupAgrees() {
        for (String style : new String[] {"hashed", "numbered"}) {
            String[] names = ApplyDelta.topicNames(style, SendPathLookup.TOPICS);
            MetadataResponseData data = Wire.data(names, 0, names.length, 0);
            ProducerMetadata kafka = Wire.producerMetadata(names, data);
            Cluster kmeta = Wire.manager(names, data).fetch();
            assertAgree(names, kafka.fetch(), kmeta, 0);
        }
    }

    @Test
    void smallChangeAgrees() {
        String[] names = ApplyDelta.topicNames("numbered", ApplySmallChange.TOPICS);
        MetadataResponseData data = Wire.data(names, 0, names.length, 0);
        ProducerMetadata kafka = Wire.producerMetadata(names, data);
        MergePath merge = new MergePath();
        Cluster kmeta = merge.apply(Cluster.empty(), ResponseTranslator.translate(Wire.response(data), Cluster.empty()));
        int t = 499;
        MetadataResponseData change = Wire.data(names, t, t + 1, 1);
        kafka.updateWithCurrentRequestVersion(Wire.response(change), true, System.currentTimeMillis());
        kmeta = merge.apply(kmeta, ResponseTranslator.translate(Wire.response(Wire.data(names, t, t + 1, 1)), kmeta));
        assertAgree(names, kafka.fetch(), kmeta, -1);
        assertEquals(Wire.leader(t, 0, 1), kmeta.leader(names[t], 0).id());
        assertEquals(Wire.leader(0, 0, 0), kmeta.leader(names[0], 0).id());
    }

    /** Same partition count and leader per partition for the sampled topics ({@code epoch} >= 0: also as built). */
    private static void assertAgree(String[] names, org.apache.kafka.common.Cluster kafka, Cluster kmeta, int epoch) {
        assertEquals(names.length, kafka.topics().size());
        assertEquals(names.length, kmeta.topicNames().size());
        for (int t : SAMPLE) {
            String name = names[t];
            TopicMetadata topic = kmeta.topic(name);
            assertNotNull(topic, name);
            assertEquals(kafka.partitionCountForTopic(name).intValue(), topic.partitionCount(), name);
            for (int p = 0; p < topic.partitionCount(); p++) {
                int kafkaLeader = kafka.leaderFor(new TopicPartition(name, p)).id();
                assertEquals(kafkaLeader, kmeta.leader(name, p).id(), name + "-" + p);
                if (epoch >= 0) {
                    assertEquals(Wire.leader(t, p, epoch), kafkaLeader, name + "-" + p);
                }
            }
        }
    }
}
