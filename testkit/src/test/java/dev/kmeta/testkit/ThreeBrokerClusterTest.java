package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three brokers and a controller: leadership moves when a leader stops, and a restarted broker rejoins. The controller
 * keeps a stopped broker's session for two minutes here, longer than a broker start may wait to register (Kafka's
 * {@code initial.broker.registration.timeout.ms}, 60 s): a restart passes only if the testkit lets the new
 * incarnation register without waiting for that session to expire.
 */
class ThreeBrokerClusterTest {

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(3)
            .controllerConfig("broker.session.timeout.ms", "120000"));

    @Test
    void leadershipMovesWhenTheLeaderStopsAndTheBrokerRejoins() throws Exception {
        KafkaCluster kafka = KAFKA.cluster();
        assertEquals(List.of(0, 1, 2), kafka.brokerIds());
        kafka.createTopic("failover", 1, 3);
        int leader = kafka.leader("failover", 0);
        int port = kafka.brokerAddress(leader).getPort();

        kafka.stopBroker(leader);
        assertEquals(2, kafka.runningBrokerIds().size());
        Awaitility.await("a new leader").atMost(Duration.ofSeconds(15))
                .until(() -> kafka.leader("failover", 0), now -> now >= 0 && now != leader);
        try (KafkaProducer<String, String> producer = Clients.producer(kafka.bootstrapServers(), 10_000)) {
            producer.send(new ProducerRecord<>("failover", "k", "while one is down")).get(10, TimeUnit.SECONDS);
        }

        kafka.startBroker(leader);
        assertEquals(List.of(0, 1, 2), kafka.runningBrokerIds());
        assertEquals(port, kafka.brokerAddress(leader).getPort(), "a restarted broker keeps its port");
        Awaitility.await("back in the ISR").atMost(Duration.ofSeconds(20))
                .until(() -> isr("failover").size(), size -> size == 3);
    }

    @Test
    void restartBrokerKeepsTheClusterServing() throws Exception {
        KafkaCluster kafka = KAFKA.cluster();
        kafka.createTopic("restarts", 3, 2);
        kafka.restartBroker(1);
        try (KafkaProducer<String, String> producer = Clients.producer(kafka.bootstrapServers(), 10_000)) {
            for (int p = 0; p < 3; p++) {
                producer.send(new ProducerRecord<>("restarts", p, "k", "v")).get(10, TimeUnit.SECONDS);
            }
        }
        assertNotEquals(-1, kafka.leader("restarts", 0));
    }

    private static List<Integer> isr(String topic) throws Exception {
        TopicDescription description = KAFKA.cluster().admin().describeTopics(List.of(topic))
                .allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
        return description.partitions().get(0).isr().stream().map(node -> node.id()).toList();
    }
}
