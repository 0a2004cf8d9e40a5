package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.internal.RefreshResponse;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResponseTranslatorTest {
    private static MetadataResponseBroker broker(int id, int port) {
        return new MetadataResponseBroker().setNodeId(id).setHost("127.0.0.1").setPort(port);
    }

    private static MetadataResponsePartition partition(int index, int leader, int epoch) {
        return new MetadataResponsePartition().setPartitionIndex(index).setLeaderId(leader).setLeaderEpoch(epoch)
                .setReplicaNodes(List.of(0, 1)).setIsrNodes(List.of(0, 1)).setOfflineReplicas(List.of());
    }

    private static MetadataResponseData data() {
        MetadataResponseData d = new MetadataResponseData().setClusterId("c1").setControllerId(1);
        d.brokers().add(broker(0, 9092));
        d.brokers().add(broker(1, 9093));
        MetadataResponseTopic t = new MetadataResponseTopic().setName("orders").setTopicId(Uuid.randomUuid())
                .setPartitions(List.of(partition(0, 0, 4), partition(1, 1, 7)));
        d.topics().add(t);
        d.topics().add(new MetadataResponseTopic().setName("ghost")
                .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
        return d;
    }

    @Test
    void translatesBrokersTopicsPartitionsAndErrors() {
        MetadataResponseData d = data();
        RefreshResponse r = ResponseTranslator.translate(new MetadataResponse(d, (short) 13), Cluster.empty());
        assertEquals("c1", r.clusterId());
        assertEquals(1, r.controllerId());
        assertEquals(List.of(new Node(0, "127.0.0.1", 9092), new Node(1, "127.0.0.1", 9093)), r.brokers());
        TopicMetadata t = r.topics().get("orders");
        assertEquals(2, t.partitionCount());
        assertEquals(7, t.partition(1).leaderEpoch());
        assertEquals(1, t.partition(1).leaderId());
        assertEquals(2, t.partition(0).replicaCount());
        Uuid id = d.topics().find("orders").topicId();
        assertEquals(id.getMostSignificantBits(), t.topicId().getMostSignificantBits());
        assertEquals(id.getLeastSignificantBits(), t.topicId().getLeastSignificantBits());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), r.topics().get("ghost").errorCode());
        assertNull(r.topics().get("ghost").topicId(), "the zero uuid means no id");
        assertTrue(r.epochsTrusted());
    }

    @Test
    void epochsFromOldResponseVersionsAreDropped() {
        MetadataResponseData d = data();
        MetadataResponse v8 = MetadataResponse.parse(MessageUtil.toByteBufferAccessor(d, (short) 8), (short) 8);
        RefreshResponse r = ResponseTranslator.translate(v8, Cluster.empty());
        assertFalse(r.epochsTrusted());
        assertEquals(-1, r.topics().get("orders").partition(1).leaderEpoch());
        assertEquals(1, r.topics().get("orders").partition(1).leaderId(), "the leader is still taken");
    }

    @Test
    void unchangedBrokersReuseTheSnapshotsNodeObjects() {
        Node known = new Node(0, "127.0.0.1", 9092);
        Cluster previous = Cluster.empty().apply(ClusterDelta.builder().nodes(List.of(known)).build());
        RefreshResponse r = ResponseTranslator.translate(new MetadataResponse(data(), (short) 13), previous);
        assertSame(known, r.brokers().get(0));
    }

    @Test
    void unchangedPartitionsReuseTheSnapshotsObjectsAndChangedOnesAreNew() {
        MetadataResponseData d = data();
        RefreshResponse first = ResponseTranslator.translate(new MetadataResponse(d, (short) 13), Cluster.empty());
        Cluster previous = Cluster.empty().apply(ClusterDelta.builder().nodes(first.brokers())
                .putTopic(first.topics().get("orders")).build());
        MetadataResponseData again = data();
        again.topics().find("orders").setTopicId(d.topics().find("orders").topicId())
                .setPartitions(List.of(partition(0, 0, 4), partition(1, 0, 8)));
        RefreshResponse second = ResponseTranslator.translate(new MetadataResponse(again, (short) 13), previous);
        TopicMetadata t = second.topics().get("orders");
        assertSame(previous.topic("orders").partition(0), t.partition(0), "unchanged: the snapshot's own object");
        assertEquals(0, t.partition(1).leaderId(), "moved leader taken");
        assertEquals(8, t.partition(1).leaderEpoch());
        MetadataResponseData isrShrunk = data();
        isrShrunk.topics().find("orders").setPartitions(List.of(partition(0, 0, 4).setIsrNodes(List.of(0)),
                partition(1, 1, 7).setOfflineReplicas(List.of(1))));
        TopicMetadata s = ResponseTranslator.translate(new MetadataResponse(isrShrunk, (short) 13), previous)
                .topics().get("orders");
        assertEquals(1, s.partition(0).inSyncReplicaCount(), "a changed ISR is a change");
        assertEquals(1, s.partition(1).offlineReplicaCount(), "a changed offline list is a change");
    }

    @Test
    void hostileInputIsNormalizedNotTrusted() {
        MetadataResponseData d = data();
        d.brokers().add(new MetadataResponseBroker().setNodeId(-5).setHost("127.0.0.1").setPort(1));
        MetadataResponseTopic bad = new MetadataResponseTopic().setName("bad")
                .setPartitions(List.of(partition(0, 0, 1), partition(0, 1, 2), partition(-3, 0, 1),
                        partition(Integer.MAX_VALUE, 0, 1)));
        d.topics().add(bad);
        d.topics().add(new MetadataResponseTopic().setName("").setPartitions(List.of(partition(0, 0, 1))));
        RefreshResponse r = ResponseTranslator.translate(new MetadataResponse(d, (short) 13), Cluster.empty());
        assertEquals(2, r.brokers().size(), "a negative broker id is dropped");
        assertFalse(r.topics().containsKey(""), "a nameless topic is skipped");
        TopicMetadata t = r.topics().get("bad");
        if (t != null) {
            assertEquals(0, t.partition(0).leaderId(), "the first entry of a duplicated partition wins");
            assertTrue(t.partitionCount() < 100_000, "an absurd index never makes a giant array");
        }
    }
}
