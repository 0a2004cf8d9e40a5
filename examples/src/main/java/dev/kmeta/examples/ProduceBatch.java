package dev.kmeta.examples;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceDataCollection;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;

import java.util.List;

/**
 * The records of one partition in one produce request, with what the request was sent on: the leader and the
 * topic id from kmeta's snapshot at that moment.
 *
 * <p>Immutable; used on the network thread.
 */
final class ProduceBatch {
    final PartitionQueue queue;
    final List<PendingRecord> records;
    final Node leader;
    final Uuid topicId;

    ProduceBatch(PartitionQueue queue, List<PendingRecord> records, Node leader, Uuid topicId) {
        this.queue = queue;
        this.records = records;
        this.leader = leader;
        this.topicId = topicId;
    }

    /** One produce request for several partitions' batches, all led by the same broker. */
    static ProduceRequest.Builder request(List<ProduceBatch> batches, short acks, int timeoutMs) {
        TopicProduceDataCollection topics = new TopicProduceDataCollection();
        for (ProduceBatch b : batches) {
            TopicProduceData topic = topics.find(b.queue.topic, b.topicId);
            if (topic == null) {
                // Produce v13 addresses the topic by id, older versions by name: give both.
                topic = new TopicProduceData().setName(b.queue.topic).setTopicId(b.topicId);
                topics.add(topic);
            }
            topic.partitionData().add(new PartitionProduceData().setIndex(b.queue.partition).setRecords(b.records()));
        }
        return ProduceRequest.builder(new ProduceRequestData().setAcks(acks).setTimeoutMs(timeoutMs)
                .setTopicData(topics));
    }

    /** The batch an answer is about: same partition, and same topic id (v13) or same name (older versions). */
    static ProduceBatch find(List<ProduceBatch> batches, TopicProduceResponse topic, int partition) {
        for (ProduceBatch b : batches) {
            boolean sameTopic = topic.topicId() != null && !Uuid.ZERO_UUID.equals(topic.topicId())
                    ? topic.topicId().equals(b.topicId) : b.queue.topic.equals(topic.name());
            if (sameTopic && b.queue.partition == partition) {
                return b;
            }
        }
        return null;
    }

    private MemoryRecords records() {
        SimpleRecord[] simple = new SimpleRecord[records.size()];
        for (int i = 0; i < simple.length; i++) {
            PendingRecord r = records.get(i);
            simple[i] = new SimpleRecord(r.createdMs, r.key, r.value);
        }
        return MemoryRecords.withRecords(Compression.NONE, simple);
    }
}
