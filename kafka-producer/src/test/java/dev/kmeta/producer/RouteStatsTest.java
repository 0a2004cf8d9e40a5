package dev.kmeta.producer;

import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.FakeBroker;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The route's counts per kmeta instance on the public API ({@link KmetaProducer#routeStats}) and in JMX beside the
 * instance's MBean: two producers of one shared instance on testkit's {@link FakeBroker}; a closed producer's counts
 * stay in the totals; the last close takes the instance's entry and its MBean away.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RouteStatsTest {
    private static FakeBroker broker;

    @BeforeAll
    static void start() {
        broker = FakeBroker.start(1);
        broker.createTopic("orders", 3);
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static Producer<String, String> producer(String clientId) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", broker.bootstrapServers());
        props.put("client.id", clientId);
        props.put("key.serializer", StringSerializer.class);
        props.put("value.serializer", StringSerializer.class);
        props.put(KmetaProducer.SHARED_METADATA, true);
        return KmetaProducer.create(props);
    }

    @Test
    void twoProducersOfOneInstanceAreCountedTogetherInTheApiAndInJmx() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Producer<String, String> a = producer("route-stats");
        Producer<String, String> b = producer("route-stats");
        KafkaMetadata instance = KmetaProducer.metadataOf(a).orElseThrow();
        try {
            a.send(new ProducerRecord<>("orders", "k", "v")).get(30, TimeUnit.SECONDS);
            b.send(new ProducerRecord<>("orders", "k", "v")).get(30, TimeUnit.SECONDS);

            RouteStats both = KmetaProducer.routeStats(instance);
            assertEquals(2, both.producersOpen(), both.toString());
            assertTrue(both.producerViewsBuilt() >= 2, "each producer's network thread built its view: " + both);
            assertEquals(2, KmetaProducer.routeStats(KmetaProducer.metadataOf(b).orElseThrow()).producersOpen(),
                    "either producer's handle names the instance");
            ObjectName name = new ObjectName("dev.kmeta:type=kafka-producer-route-stats,client-id="
                    + instance.config().clientId());
            assertEquals(2L, server.getAttribute(name, "ProducersOpen"));
            assertEquals(both.producerViewsBuilt(), (long) server.getAttribute(name, "ProducerViewsBuilt"),
                    "JMX reads the same counts");

            long builtBefore = both.producerViewsBuilt();
            a.close(Duration.ofSeconds(10));
            RouteStats one = KmetaProducer.routeStats(instance);
            assertEquals(1, one.producersOpen(), one.toString());
            assertTrue(one.producerViewsBuilt() >= builtBefore, "a closed producer's counts stay: " + one);
            assertEquals(1L, server.getAttribute(name, "ProducersOpen"));
        } finally {
            a.close(Duration.ofSeconds(10));
            b.close(Duration.ofSeconds(10));
        }
        Set<ObjectName> left = server.queryNames(new ObjectName("dev.kmeta:type=kafka-producer-route-stats,*"), null);
        assertEquals(Set.of(), left, "the last close unregistered the instance's route MBean");
        assertEquals(0, KmetaProducer.routeStats(instance).producersOpen());
    }
}
