package dev.kmeta.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * kmeta on each supported kafka-clients (4.0.x to 4.4.x): in this JVM, each version in a class loader of its own
 * with kmeta's compiled classes (compiled against 4.4), against one in-process 4.4 broker. kmeta's own sender thread
 * builds its NetworkClient through the version's {@code createNetworkClient} and fetches a topic; the example
 * producer (kmeta driven from its own NetworkClient) produces 20 records, addressing the topic by id where the
 * version's produce requests can (4.1+) and by name on 4.0. A kafka-clients older than 4.0 is refused at creation,
 * with a message that names the version found.
 *
 * <p>The KafkaProducer route too ({@link ProducerRouteProbe}): on each version, {@code KmetaProducer.create} picks
 * that version's {@code ProducerMetadata} stand-in (4.0-4.3: {@code ProducerMetadata40}, 4.4: {@code
 * ProducerMetadata44}), a real KafkaProducer sends 20 records through it, and a send to a missing topic fails with
 * kmeta's diagnosis; 3.9 is refused at every creation, naming the version.
 *
 * <p>The tests run concurrently (src/test/resources/junit-platform.properties): each version has its class loader,
 * client ids and, on the KafkaProducer route, its own missing-topic wait; they share the broker and the topic.
 *
 * <p>Before KafkaClientsCompat, 4.0-4.3 failed here with {@code NoClassDefFoundError:
 * org/apache/kafka/common/utils/internals/LogContext} at the first instance.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClientVersionsTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(1);
    private static final String TOPIC = "versions";

    static List<String> versions() {
        return ClientJars.supported();
    }

    private static Map<String, Object> probe(String version) throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        ensureTopic(cluster);
        return ClientJars.probe(version, Map.of("bootstrap.servers", cluster.bootstrapServers()), TOPIC);
    }

    /** Creates the topic once, whichever of the concurrent tests comes first. */
    private static synchronized void ensureTopic(KafkaCluster cluster) throws Exception {
        if (cluster.runningBrokerIds().size() == 1
                && !cluster.admin().listTopics().names().get(30, TimeUnit.SECONDS).contains(TOPIC)) {
            cluster.createTopic(TOPIC, 2, 1);
        }
    }

    @Execution(ExecutionMode.CONCURRENT)
    @ParameterizedTest(name = "kafka-clients {0}")
    @MethodSource("versions")
    void kmetaFetchesAndTheExampleProducerProduces(String version) throws Exception {
        Map<String, Object> seen = probe(version);
        assertEquals(version, seen.get("version"), "the class loader runs that kafka-clients: " + seen);
        assertTrue(String.valueOf(seen.get("kafkaClientsJar")).endsWith("kafka-clients-" + version + ".jar"),
                String.valueOf(seen));
        assertNull(seen.get("refused"), String.valueOf(seen));
        assertEquals(2, seen.get("partitions"), String.valueOf(seen));
        assertEquals(0, seen.get("leader0"), String.valueOf(seen));
        org.apache.kafka.common.Uuid id = KAFKA.cluster().admin().describeTopics(List.of(TOPIC)).allTopicNames()
                .get(30, TimeUnit.SECONDS).get(TOPIC).topicId();
        assertEquals(new java.util.UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()).toString(),
                seen.get("topicId"), String.valueOf(seen));
        boolean is44 = version.startsWith("4.4.");
        assertEquals(is44, seen.get("bootstrapServersParameter"), "createNetworkClient's shape: " + seen);
        assertEquals(!version.startsWith("4.0."), seen.get("produceByTopicId"), "produce by topic id from 4.1");
        assertNull(seen.get("produceFailed"), String.valueOf(seen));
        assertEquals(20, seen.get("acked"), String.valueOf(seen));
    }

    @Execution(ExecutionMode.CONCURRENT)
    @ParameterizedTest(name = "kafka-clients {0}")
    @MethodSource("versions")
    void theKafkaProducerRouteSendsAndDiagnosesOnItsStandIn(String version) throws Exception {
        probe(version); // the topic
        Map<String, Object> seen = ClientJars.run(version, ProducerRouteProbe.class,
                Map.of("bootstrap.servers", KAFKA.cluster().bootstrapServers()), TOPIC);
        assertEquals(version, seen.get("version"), String.valueOf(seen));
        assertNull(seen.get("refused"), String.valueOf(seen));
        assertNull(seen.get("failed"), String.valueOf(seen));
        assertEquals("dev.kmeta.producer.internal.ProducerMetadata" + (version.startsWith("4.4.") ? "44" : "40"),
                seen.get("standIn"), String.valueOf(seen));
        assertEquals(true, seen.get("onKmeta"), String.valueOf(seen));
        assertEquals(20, seen.get("acked"), String.valueOf(seen));
        assertEquals("TOPIC_NOT_FOUND", seen.get("missingCause"), "kmeta's diagnosis through this version's "
                + "awaitUpdate: " + seen);
    }

    @Execution(ExecutionMode.CONCURRENT)
    @Test
    void anOlderKafkaClientsIsRefusedByTheKafkaProducerRouteAtEveryCreation() throws Exception {
        String version = ClientJars.refused();
        Map<String, Object> seen = ClientJars.run(version, ProducerRouteProbe.class,
                Map.of("bootstrap.servers", KAFKA.cluster().bootstrapServers(),
                        "kmeta.producer.unsupported.version", "fail"), TOPIC); // else a stock producer
        for (String key : List.of("refused", "refusedAgain")) {
            String refused = String.valueOf(seen.get(key));
            assertTrue(refused.startsWith("org.apache.kafka.common.KafkaException: kmeta's KafkaProducer route "),
                    key + ": " + refused);
            assertTrue(refused.contains("found kafka-clients " + version) && refused.contains(dev.kmeta.producer.KmetaProducer.SUPPORTED_KAFKA_CLIENTS),
                    key + ": " + refused);
        }
    }

    @Execution(ExecutionMode.CONCURRENT)
    @Test
    void anOlderKafkaClientsIsRefusedAtCreationByName() throws Exception {
        String version = ClientJars.refused();
        Map<String, Object> seen = probe(version);
        String refused = String.valueOf(seen.get("refused"));
        assertTrue(refused.startsWith("org.apache.kafka.common.KafkaException: "), refused);
        assertTrue(refused.contains("kafka-clients " + version), refused);
        assertTrue(refused.contains(dev.kmeta.sender.internal.KafkaClientsCompat.SUPPORTED), refused);
        assertTrue(refused.contains("kafka-clients-" + version + ".jar"), "names the jar: " + refused);
    }
}
