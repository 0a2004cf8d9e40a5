package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link FakeBroker}: an unmodified KafkaProducer (idempotent) gets acks; a Metadata request for all topics lists
 * 100k partitions; a changed topic (leaders moved, epoch bumped, deleted and re-created) shows in the next answer,
 * and a producer that sent to it before the move learns the new leader and gets its ack; a leaderless topic answers
 * LEADER_NOT_AVAILABLE until its leaders are given back. (kmeta's KafkaProducer on
 * the fake broker: bench's {@code FakeBrokerRouteTest}, as testkit cannot depend on kafka-producer.)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FakeBrokerTest {
    private static final int TOPICS = 1_000;
    private static final int PARTITIONS = 100;
    private static FakeBroker broker;

    @BeforeAll
    static void start() {
        broker = FakeBroker.start(3);
        List<String> names = new ArrayList<>();
        for (int t = 0; t < TOPICS; t++) {
            names.add(String.format("topic-%04d", t));
        }
        broker.createTopics(names, PARTITIONS);
    }

    @AfterAll
    static void stop() {
        broker.close();
        assertEquals(0, broker.openConnections());
    }

    @Test
    void aStockProducerGetsAcksAndLearnsAMovedLeader() throws Exception {
        long recordsBefore = broker.recordsAcked();
        try (Producer<byte[], byte[]> producer = new KafkaProducer<>(producerProps("stock"))) {
            RecordMetadata first = producer.send(new ProducerRecord<>("topic-0001", 7, null, new byte[8]))
                    .get(30, TimeUnit.SECONDS);
            assertEquals(7, first.partition());
            assertTrue(first.offset() >= 0);
            assertTrue(broker.requestCount(ApiKeys.INIT_PRODUCER_ID) >= 1, "idempotent producer: InitProducerId");

            int oldLeader = broker.leader("topic-0001", 7);
            int epoch = broker.moveLeaders("topic-0001");
            assertNotEquals(oldLeader, broker.leader("topic-0001", 7));
            int newLeader = broker.leader("topic-0001", 7);
            long notLeaderBefore = broker.requestCount(oldLeader, ApiKeys.PRODUCE);
            long leaderBefore = broker.requestCount(newLeader, ApiKeys.PRODUCE);
            RecordMetadata second = producer.send(new ProducerRecord<>("topic-0001", 7, null, new byte[8]))
                    .get(30, TimeUnit.SECONDS);
            assertTrue(second.offset() > first.offset());
            // The batch went to the old leader first (NOT_LEADER_OR_FOLLOWER), then to the new one.
            assertTrue(broker.requestCount(oldLeader, ApiKeys.PRODUCE) > notLeaderBefore);
            assertTrue(broker.requestCount(newLeader, ApiKeys.PRODUCE) > leaderBefore, "acked by the new leader");
            assertEquals(1, epoch);
        }
        assertEquals(2, broker.recordsAcked() - recordsBefore);
    }

    @Test
    void aMetadataRequestForAllTopicsListsEveryPartition() throws IOException {
        long before = broker.partitionsAnswered();
        MetadataResponse all = metadata(null);
        int partitions = 0;
        int topics = 0;
        for (MetadataResponseData.MetadataResponseTopic t : all.data().topics()) {
            if (t.name().startsWith("topic-")) {
                topics++;
                partitions += t.partitions().size();
                assertNotEquals(Uuid.ZERO_UUID, t.topicId());
            }
        }
        assertEquals(TOPICS, topics);
        assertEquals(TOPICS * PARTITIONS, partitions);
        assertEquals(3, all.data().brokers().size());
        assertEquals(broker.clusterId(), all.data().clusterId());
        assertTrue(broker.partitionsAnswered() - before >= (long) TOPICS * PARTITIONS);
    }

    @Test
    void aChangedTopicShowsInTheNextAnswer() throws IOException {
        String topic = "topic-0500";
        MetadataResponseData.MetadataResponseTopic before = metadata(List.of(topic)).data().topics().find(topic);
        int leader0 = before.partitions().get(0).leaderId();
        int epoch0 = before.partitions().get(0).leaderEpoch();

        broker.moveLeaders(topic);
        MetadataResponseData.MetadataResponseTopic moved = metadata(List.of(topic)).data().topics().find(topic);
        for (MetadataResponseData.MetadataResponsePartition p : moved.partitions()) {
            assertEquals(epoch0 + 1, p.leaderEpoch());
            assertEquals(broker.leader(topic, p.partitionIndex()), p.leaderId());
            assertEquals(p.leaderId(), (int) p.isrNodes().get(0));
        }
        assertNotEquals(leader0, moved.partitions().get(0).leaderId());

        broker.bumpLeaderEpoch(topic);
        MetadataResponseData.MetadataResponseTopic bumped = metadata(List.of(topic)).data().topics().find(topic);
        assertEquals(epoch0 + 2, bumped.partitions().get(0).leaderEpoch());
        assertEquals(moved.partitions().get(0).leaderId(), bumped.partitions().get(0).leaderId());

        Uuid oldId = before.topicId();
        broker.deleteTopic(topic);
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                metadata(List.of(topic)).data().topics().find(topic).errorCode());
        Uuid newId = broker.createTopic(topic, PARTITIONS);
        MetadataResponseData.MetadataResponseTopic recreated =
                metadata(List.of(topic)).data().topics().find(topic);
        assertEquals(newId, recreated.topicId());
        assertNotEquals(oldId, newId);
        assertEquals(0, recreated.partitions().get(0).leaderEpoch());
    }

    @Test
    void aLeaderlessTopicAnswersLeaderNotAvailableUntilGivenBack() throws IOException {
        String topic = "topic-0600";
        int home = broker.leader(topic, 3);
        broker.leaderless(topic, true);
        try {
            assertEquals(-1, broker.leader(topic, 3));
            MetadataResponseData.MetadataResponseTopic dark = metadata(List.of(topic)).data().topics().find(topic);
            for (MetadataResponseData.MetadataResponsePartition p : dark.partitions()) {
                assertEquals(Errors.LEADER_NOT_AVAILABLE.code(), p.errorCode());
                assertEquals(-1, p.leaderId());
                assertTrue(p.isrNodes().isEmpty());
                assertTrue(!p.replicaNodes().isEmpty());
            }
        } finally {
            broker.leaderless(topic, false);
        }
        MetadataResponseData.MetadataResponsePartition back =
                metadata(List.of(topic)).data().topics().find(topic).partitions().get(3);
        assertEquals(Errors.NONE.code(), back.errorCode());
        assertEquals(home, back.leaderId());
    }

    /** One Metadata request (latest version) for {@code topics} (null: all) on a raw connection to node 0. */
    private static MetadataResponse metadata(List<String> topics) throws IOException {
        MetadataRequestData request = new MetadataRequestData().setAllowAutoTopicCreation(false);
        if (topics == null) {
            request.setTopics(null);
        } else {
            for (String t : topics) {
                request.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(t));
            }
        }
        short version = ApiKeys.METADATA.latestVersion();
        RequestHeader header = new RequestHeader(ApiKeys.METADATA, version, "fake-broker-test", 1);
        ByteBuffer frame = RequestUtils.serialize(header.data(), header.headerVersion(), request, version);
        try (Socket s = new Socket("127.0.0.1", broker.port(0))) {
            byte[] out = new byte[4 + frame.remaining()];
            ByteBuffer.wrap(out).putInt(frame.remaining()).put(frame);
            s.getOutputStream().write(out);
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            return (MetadataResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header);
        }
    }

    private static Map<String, Object> producerProps(String clientId) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", broker.bootstrapServers());
        p.put("client.id", clientId);
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        p.put("max.block.ms", 30_000);
        p.put("delivery.timeout.ms", 60_000);
        return p;
    }
}
