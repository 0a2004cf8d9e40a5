package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One combined broker+controller, shared by the tests of this class. */
class SingleBrokerClusterTest {

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(1);

    @Test
    void createdTopicTakesRecordsAndAdminSeesIt() throws Exception {
        KafkaCluster kafka = KAFKA.cluster();
        kafka.createTopic("orders", 3, 1, Map.of("retention.ms", "60000"));
        try (KafkaProducer<String, String> producer = Clients.producer(KAFKA.bootstrapServers(), 10_000)) {
            RecordMetadata sent = producer.send(new ProducerRecord<>("orders", 2, "k", "v")).get(10, TimeUnit.SECONDS);
            assertEquals(2, sent.partition());
            assertEquals(0, sent.offset());
        }
        try (Admin admin = Clients.admin(KAFKA.bootstrapServers())) {
            TopicDescription orders = admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders");
            assertEquals(3, orders.partitions().size());
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "orders");
            assertEquals("60000", admin.describeConfigs(List.of(resource)).all().get().get(resource)
                    .get("retention.ms").value());
            assertEquals(kafka.clusterId(), admin.describeCluster().clusterId().get());
        }
        assertEquals(0, kafka.leader("orders", 1));
    }

    @Test
    void autoCreationIsOffSoUnknownTopicsStayUnknown() throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(KAFKA.bootstrapServers(), 1_000)) {
            assertThrows(TimeoutException.class, () -> producer.partitionsFor("never-created"));
        }
        assertFalse(KAFKA.cluster().admin().listTopics().names().get().contains("never-created"));
    }

    @Test
    void partitionsCanBeAddedAndTopicsDeleted(KafkaCluster kafka) throws Exception {
        kafka.createTopic("growing", 1, 1);
        kafka.addPartitions("growing", 4);
        try (KafkaProducer<String, String> producer = Clients.producer(kafka.bootstrapServers(), 10_000)) {
            assertEquals(4, producer.partitionsFor("growing").size());
        }
        kafka.deleteTopic("growing");
        assertFalse(kafka.admin().listTopics().names().get().contains("growing"));
        kafka.createTopic("growing", 2, 1);
        assertTrue(kafka.admin().listTopics().names().get().contains("growing"));
    }

    @Test
    void describesItself(KafkaCluster kafka) {
        assertEquals(List.of(0), kafka.brokerIds());
        assertEquals(List.of(0), kafka.runningBrokerIds());
        assertEquals("127.0.0.1:" + kafka.brokerAddress(0).getPort(), kafka.bootstrapServers());
        assertThrows(IllegalArgumentException.class, () -> kafka.brokerAddress(1));
        assertThrows(UnsupportedOperationException.class, () -> kafka.killBroker(0));
        assertThrows(IllegalStateException.class, () -> kafka.proxy(0));
    }

    @Test
    void aRestartedBrokerKeepsItsPortOrMovesIfThePortWasTaken(KafkaCluster kafka) throws Exception {
        kafka.createTopic("survivor", 1, 1);
        int port = kafka.brokerAddress(0).getPort();
        kafka.restartBroker(0);
        assertEquals(port, kafka.brokerAddress(0).getPort());

        kafka.stopBroker(0);
        try (ServerSocket squatter = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            kafka.startBroker(0);
            assertNotEquals(squatter.getLocalPort(), kafka.brokerAddress(0).getPort());
        }
        try (KafkaProducer<String, String> producer = Clients.producer(kafka.bootstrapServers(), 10_000)) {
            producer.send(new ProducerRecord<>("survivor", "k", "v")).get(10, TimeUnit.SECONDS);
        }
        assertEquals(0, kafka.leader("survivor", 0), "the shared Admin follows the new ports");
    }

    @Nested
    class NestedClasses {
        @Test
        void shareTheOuterClassCluster(KafkaCluster kafka) {
            assertSame(KAFKA.cluster(), kafka);
            assertEquals(List.of(0), kafka.runningBrokerIds());
        }
    }
}
