package dev.kmeta.producer;

import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.KafkaClusterExtension;
import dev.kmeta.testkit.TestClients;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kmeta MBean of producers made without {@code client.id}, through {@link KmetaProducer} on a real broker: the
 * instance takes the first producer's own client id - the {@code producer-<n>} kafka-clients generates - so kmeta's
 * MBean, thread and log prefix carry the id the producer's own metrics and log lines carry, and docs/metrics.md says
 * so (it said only "kmeta generates {@code kmeta-<n>}", which holds for {@code KafkaMetadata} made without one).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KmetaProducerMBeanNameTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(1);

    private static Map<String, Object> propsWithoutClientId() {
        Map<String, Object> p = TestClients.producerProps(KAFKA.bootstrapServers());
        p.remove(ProducerConfig.CLIENT_ID_CONFIG);
        return p;
    }

    /** The client id the producer's own metrics are tagged with (kafka-clients' generated one here). */
    private static String producerClientId(Producer<?, ?> producer) {
        for (MetricName name : producer.metrics().keySet()) {
            String id = name.tags().get("client-id");
            if (id != null) {
                return id;
            }
        }
        throw new AssertionError("no client-id tag in the producer's metrics");
    }

    @Test
    void withoutClientIdTheMBeanCarriesTheFirstProducersGeneratedId() throws Exception {
        KAFKA.cluster().createTopic("mbean-name", 1, 1);
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        ObjectName name;
        try (Producer<String, String> first = KmetaProducer.create(propsWithoutClientId());
             Producer<String, String> second = KmetaProducer.create(propsWithoutClientId())) {
            first.send(new ProducerRecord<>("mbean-name", "k", "v")).get(30, TimeUnit.SECONDS);
            second.send(new ProducerRecord<>("mbean-name", "k", "v")).get(30, TimeUnit.SECONDS);
            String firstId = producerClientId(first);
            String secondId = producerClientId(second);
            assertTrue(firstId.matches("producer-\\d+") && secondId.matches("producer-\\d+"), firstId + ", " + secondId);

            KafkaMetadata kmeta = KmetaProducer.metadataOf(first).orElseThrow();
            name = kmeta.mbeanName();
            assertEquals(new ObjectName("dev.kmeta:type=metadata,client-id=" + firstId), name);
            assertEquals(name, KmetaProducer.metadataOf(second).orElseThrow().mbeanName(), "one shared instance");
            assertTrue(jmx.isRegistered(name), name + " registered");
            assertEquals(firstId, jmx.getAttribute(name, "ClientId"));
            assertEquals("shared", jmx.getAttribute(name, "Sharing"));
            Object users = jmx.getAttribute(name, "Users");
            List<String> userIds = Arrays.asList((String[]) users);
            assertTrue(userIds.contains(firstId) && userIds.contains(secondId), "users " + userIds);
            assertTrue(jmx.queryNames(new ObjectName("dev.kmeta:type=metadata,client-id=kmeta-*,*"), null).isEmpty(),
                    "no kmeta-<n> instance: " + jmx.queryNames(new ObjectName("dev.kmeta:type=metadata,*"), null));
        }
        assertFalse(jmx.isRegistered(name), "unregistered when the last producer closed");
    }

    @Test
    void metricsDocSaysHowTheRouteNamesIt() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "metrics.md"));
        String nameSection = page.substring(page.indexOf("### The name"), page.indexOf("### Life cycle"));
        assertTrue(nameSection.contains("`producer-<n>`") && nameSection.contains("KmetaProducer"),
                "docs/metrics.md's 'The name' says what a KmetaProducer without client.id is named:\n" + nameSection);
    }
}
