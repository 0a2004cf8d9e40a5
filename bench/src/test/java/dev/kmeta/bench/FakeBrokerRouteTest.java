package dev.kmeta.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.testkit.FakeBroker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The KafkaProducer route on testkit's {@link FakeBroker} (what P3k and P5k measure): kmeta's producer gets acks and
 * learns a moved leader, and a small {@link TopicChangeCost} run measures both producers' rounds.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FakeBrokerRouteTest {

    @Test
    void kmetaProducerGetsAcksAndLearnsAMovedLeader() throws Exception {
        try (FakeBroker broker = FakeBroker.start(3)) {
            broker.createTopics(List.of("a", "b"), 10);
            Map<String, Object> props = TopicChangeCost.props(broker.bootstrapServers(), "route-test");
            try (Producer<byte[], byte[]> producer = KmetaProducer.create(props)) {
                RecordMetadata first = producer.send(new ProducerRecord<>("a", 3, null, new byte[8]))
                        .get(30, TimeUnit.SECONDS);
                assertEquals(3, first.partition());
                producer.send(new ProducerRecord<>("b", 0, null, new byte[8])).get(30, TimeUnit.SECONDS);
                assertTrue(broker.requestCount(ApiKeys.INIT_PRODUCER_ID) >= 1);

                int oldLeader = broker.leader("a", 3);
                broker.moveLeaders("a");
                int newLeader = broker.leader("a", 3);
                long atOldLeader = broker.requestCount(oldLeader, ApiKeys.PRODUCE);
                long atNewLeader = broker.requestCount(newLeader, ApiKeys.PRODUCE);
                RecordMetadata second = producer.send(new ProducerRecord<>("a", 3, null, new byte[8]))
                        .get(30, TimeUnit.SECONDS);
                assertTrue(second.offset() > first.offset());
                assertTrue(broker.requestCount(oldLeader, ApiKeys.PRODUCE) > atOldLeader,
                        "the batch went to the old leader first");
                assertTrue(broker.requestCount(newLeader, ApiKeys.PRODUCE) > atNewLeader, "acked by the new leader");
            }
            assertEquals(3, broker.recordsAcked());
        }
    }

    @Test
    void aSmallTopicChangeCostRunMeasuresBothRoutes() throws Exception {
        TopicChangeCost.Settings s = new TopicChangeCost.Settings(2, 1, 20, 4, 3, true, "both", false, 4, 1);
        Map<String, List<TopicChangeCost.Round>> rounds = TopicChangeCost.run(s);
        assertEquals(2, rounds.size());
        for (List<TopicChangeCost.Round> r : rounds.values()) {
            assertEquals(4, r.size()); // 2 changes, each with its control round
            for (TopicChangeCost.Round round : r) {
                assertTrue(round.networkCpuNs() > 0, round.toString());
                assertTrue(round.first().bytes() > 0, round.toString());
                if (round.change()) {
                    assertTrue(round.metadataRequests() >= 1, "the change made the producer ask: " + round);
                }
            }
        }
        assertTrue(TopicChangeCost.table(rounds).contains("(c) network thread per round"));
    }
}
