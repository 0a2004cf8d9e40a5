package dev.kmeta.micrometer;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.KafkaClusterExtension;
import dev.kmeta.testkit.TestClients;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.time.Duration;

/**
 * The binder against a real broker, read through a {@link SimpleMeterRegistry} as a scrape would: the meters move as
 * requests, waits and timeouts happen, carry the client id (and the cause), and survive the instance's close.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KmetaMetricsTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(1);

    private static Map<String, Object> props(String clientId) {
        Map<String, Object> p = TestClients.props(KAFKA.cluster().bootstrapServers(), "metrics");
        p.put("client.id", clientId);
        p.put("retry.backoff.ms", 50);
        p.put("request.timeout.ms", 2_000);
        return p;
    }

    private static double count(SimpleMeterRegistry r, String name, String... tags) {
        FunctionCounter c = r.find(name).tags(tags).functionCounter();
        assertNotNull(c, name + " " + List.of(tags));
        return c.count();
    }

    @Test
    void metersMoveWithRequestsWaitsAndTimeoutsTaggedWithClientIdAndCause() {
        KAFKA.cluster().createTopic("mm-orders", 2, 1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (KafkaMetadata m = KafkaMetadata.create(props("mm-moving"))) {
            KmetaMetrics.of(m).withTopicAges(List.of("mm-orders")).bindTo(registry);
            assertTrue(Double.isNaN(registry.get("kmeta.metadata.topic.age").timeGauge().value()),
                    "not subscribed yet");

            m.awaitTopic("mm-orders", MetadataClient.ANY_PARTITION, m.newDeadline(Duration.ofSeconds(20))); // a miss: a real wait
            assertTrue(count(registry, "kmeta.metadata.requests") >= 1);
            FunctionTimer latency = registry.get("kmeta.metadata.request.latency").functionTimer();
            assertTrue(latency.count() >= 1, "answers applied: " + latency.count());
            FunctionTimer waits = registry.get("kmeta.metadata.waits").functionTimer();
            assertEquals(1, waits.count(), "one wait past the miss");
            assertTrue(waits.totalTime(TimeUnit.NANOSECONDS) > 0);
            assertTrue(registry.get("kmeta.metadata.topic.age").timeGauge().value(TimeUnit.MILLISECONDS) >= 0);
            assertTrue(registry.get("kmeta.metadata.version").gauge().value() >= 1);
            assertTrue(registry.get("kmeta.metadata.oldest.topic.age").timeGauge().value(TimeUnit.MILLISECONDS) >= 0);
            assertEquals(0, count(registry, "kmeta.metadata.misrouted.connections"));

            m.awaitTopic("mm-orders", MetadataClient.ANY_PARTITION, m.newDeadline(Duration.ofSeconds(20))); // a hit: no wait
            assertEquals(1, waits.count(), "a cache hit is no wait");

            double requestsBefore = count(registry, "kmeta.metadata.requests");
            TimeoutException e = assertThrows(TimeoutException.class,
                    () -> m.awaitTopic("mm-missing", MetadataClient.ANY_PARTITION, m.newDeadline(Duration.ofSeconds(3))));
            assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, Diagnosis.from(e).orElseThrow().cause());
            assertEquals(1, count(registry, "kmeta.metadata.timeouts", "cause", "TOPIC_NOT_FOUND"));
            assertEquals(0, count(registry, "kmeta.metadata.timeouts", "cause", "NO_ANSWER_IN_TIME"));
            assertEquals(Diagnosis.Cause.values().length,
                    registry.find("kmeta.metadata.timeouts").functionCounters().size(), "one counter per cause");
            assertTrue(count(registry, "kmeta.metadata.requests") > requestsBefore, "the missing topic was asked for");
            assertEquals(2, waits.count());
            assertEquals(0, registry.get("kmeta.metadata.waiters").gauge().value());

            for (Meter meter : registry.getMeters()) {
                assertEquals("mm-moving", meter.getId().getTag("client.id"), meter.getId().toString());
                if (!(meter instanceof TimeGauge) && !(meter instanceof FunctionTimer)
                        && !meter.getId().getName().equals("kmeta.metadata.version")) {
                    assertNotNull(meter.getId().getBaseUnit(), "base unit of " + meter.getId());
                }
            }
            assertEquals("seconds", registry.get("kmeta.metadata.age").timeGauge().getId().getBaseUnit());
        }
    }

    @Test
    void closingAfterBindingOrBindingAClosedInstanceThrowsNothing() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        KafkaMetadata m = KafkaMetadata.create(props("mm-closed"));
        KmetaMetrics.of(m).withTags(Tags.of("app", "test")).withTopicAges(List.of("t")).bindTo(registry);
        m.requestUpdate();
        m.close();
        assertDoesNotThrow(() -> registry.getMeters().forEach(meter -> meter.measure().forEach(ms -> ms.getValue())));
        assertEquals("test", registry.get("kmeta.metadata.requests").functionCounter().getId().getTag("app"));

        SimpleMeterRegistry later = new SimpleMeterRegistry();
        assertDoesNotThrow(() -> KmetaMetrics.of(m).bindTo(later));
        assertDoesNotThrow(() -> later.getMeters().forEach(meter -> meter.measure().forEach(ms -> ms.getValue())));
        assertEquals(m.stats().requestsSent(), count(later, "kmeta.metadata.requests"), "the last counts stay");
    }

    /** The route's binder reads the producers' counts of the instance, and 0 once the last one closed. */
    @Test
    void theRouteMetersReadTheKafkaProducerRoutesCounts() throws Exception {
        KAFKA.cluster().createTopic("route-meters", 1, 1);
        Map<String, Object> p = props("route-meters");
        p.put("key.serializer", org.apache.kafka.common.serialization.StringSerializer.class);
        p.put("value.serializer", org.apache.kafka.common.serialization.StringSerializer.class);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (org.apache.kafka.clients.producer.Producer<String, String> producer =
                     dev.kmeta.producer.KmetaProducer.create(p)) {
            KafkaMetadata instance = dev.kmeta.producer.KmetaProducer.metadataOf(producer).orElseThrow();
            KmetaRouteMetrics.of(instance).bindTo(registry);
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>("route-meters", "v"))
                    .get(30, TimeUnit.SECONDS);
            assertEquals(1.0, registry.find("kmeta.route.producers.open").tags("client.id", "route-meters").gauge()
                    .value());
            assertTrue(count(registry, "kmeta.route.producer.views.built", "client.id", "route-meters") >= 1,
                    "the producer's network thread built its view");
            assertEquals(dev.kmeta.producer.RouteStats.Counter.values().length, registry.getMeters().stream()
                    .filter(m -> m.getId().getName().startsWith("kmeta.route.")).count(), "one meter per counter");
        }
        assertEquals(0.0, registry.find("kmeta.route.producers.open").gauge().value(), "closed: none open");
    }
}
