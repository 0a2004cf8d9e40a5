package dev.kmeta.examples;

import dev.kmeta.sender.internal.KafkaClientsCompat;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceDataCollection;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.requests.ProduceRequest;

import java.util.Collection;
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
        TopicProduceDataCollection collection = new TopicProduceDataCollection();
        // Used as a plain Collection: its own add() links against ImplicitLinkedHashCollection, which kafka-clients
        // moved to common.utils.internals in 4.4, so a call through its own type would not link on 4.0-4.3.
        Collection<TopicProduceData> topics = collection;
        for (ProduceBatch b : batches) {
            TopicProduceData topic = find(topics, b.queue.topic, b.topicId);
            if (topic == null) {
                // Produce v13 addresses the topic by id, older versions by name: give both (kafka-clients 4.0 has
                // no topic id in produce requests: by name only there).
                topic = KafkaClientsCompat.setTopicId(new TopicProduceData().setName(b.queue.topic), b.topicId);
                topics.add(topic);
            }
            topic.partitionData().add(b.records(new PartitionProduceData().setIndex(b.queue.partition)));
        }
        return ProduceRequest.builder(new ProduceRequestData().setAcks(acks).setTimeoutMs(timeoutMs)
                .setTopicData(collection));
    }

    /** The request's entry for a topic: same name and, where the version has them, same topic id. */
    private static TopicProduceData find(Collection<TopicProduceData> topics, String name, Uuid topicId) {
        boolean byId = KafkaClientsCompat.produceByTopicId();
        for (TopicProduceData t : topics) {
            if (t.name().equals(name) && (!byId || KafkaClientsCompat.topicId(t).equals(topicId))) {
                return t;
            }
        }
        return null;
    }

    /** The batch an answer is about: same partition, and same topic id (v13) or same name (older versions). */
    static ProduceBatch find(List<ProduceBatch> batches, TopicProduceResponse topic, int partition) {
        for (ProduceBatch b : batches) {
            Uuid answered = KafkaClientsCompat.topicId(topic); // ZERO_UUID before v13, and on kafka-clients 4.0
            boolean sameTopic = answered != null && !Uuid.ZERO_UUID.equals(answered)
                    ? answered.equals(b.topicId) : b.queue.topic.equals(topic.name());
            if (sameTopic && b.queue.partition == partition) {
                return b;
            }
        }
        return null;
    }

    /** The batch's records (uncompressed), set on the partition's produce data. */
    private PartitionProduceData records(PartitionProduceData partition) {
        int n = records.size();
        long[] timestamps = new long[n];
        byte[][] keys = new byte[n][];
        byte[][] values = new byte[n][];
        for (int i = 0; i < n; i++) {
            PendingRecord r = records.get(i);
            timestamps[i] = r.createdMs;
            keys[i] = r.key;
            values[i] = r.value;
        }
        // MemoryRecords.withRecords over SimpleRecords: kafka-clients moved them to record.internal in 4.3
        return KafkaClientsCompat.setRecords(partition, timestamps, keys, values);
    }
}
