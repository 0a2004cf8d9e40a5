package dev.kmeta.producer;

import dev.kmeta.sender.internal.Handles;
import dev.kmeta.metadata.PrefetchResult;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.MetadataStats;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.producer.ProducerIt.bridge;
import static dev.kmeta.testkit.TestClients.producerProps;
import static dev.kmeta.testkit.TestClients.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Warm-up through Apache Kafka's own KafkaProducer on kmeta, against a real broker: after
 * {@code KafkaMetadata.prefetch} on the shared instance (or with {@code kmeta.metadata.prefetch.topics} in the
 * producer's configuration) the producer's first send to the topic makes no metadata wait - kmeta's wait count stays
 * where it was - while a first send to a topic not prefetched waits for it. The send() latencies of both are printed
 * (after one unmeasured send, so that neither pays the producer's own first-send costs).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KmetaProducerWarmUpTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(1);

    @BeforeAll
    static void topics() {
        KAFKA.cluster().createTopic("warm", 3, 1);
        KAFKA.cluster().createTopic("cold", 3, 1);
        KAFKA.cluster().createTopic("warm-by-key", 3, 1);
        KAFKA.cluster().createTopic("jvm-warm-up", 1, 1);
    }

    @Test
    void afterAPrefetchTheFirstSendMakesNoMetadataWait() throws Exception {
        Map<String, Object> p = producerProps(KAFKA.cluster().bootstrapServers());
        try (KafkaMetadata metadata = KafkaMetadata.shared(p);
             Producer<String, String> producer = KmetaProducer.create(p)) {
            assertTrue(Handles.sameInstance(bridge(producer).metadata(), metadata), "the producer shares the instance");
            timedSend(producer, "jvm-warm-up"); // the producer's and the JVM's first-send costs, not measured
            PrefetchResult warm = metadata.prefetch(List.of("warm"), metadata.newDeadline(Duration.ofSeconds(30)));
            assertNull(metadata.fetch().topic("cold"), "only the prefetched topic is known before the sends");
            assertTrue(warm.complete(), warm.toString());

            MetadataStats before = metadata.stats();
            long warmNs = timedSend(producer, "warm");
            MetadataStats afterWarm = metadata.stats();
            long coldNs = timedSend(producer, "cold");
            MetadataStats afterCold = metadata.stats();

            assertEquals(0, afterWarm.minus(before).waits(), "the first send to a prefetched topic: no metadata wait");
            // not waits() >= 1: kmeta's answer may come before the send's awaitUpdate on a loaded machine (then the
            // wait returns at once, uncounted); the request for the topic is made either way
            assertTrue(afterCold.minus(afterWarm).requestsSent() >= 1, "a first send to another topic fetches it");
            report("KafkaProducer on kmeta, the first send() call to a topic: %.3f ms when prefetched (the prefetch "
                    + "took %d ms), %.3f ms when not (%d metadata wait(s), %.3f ms waited)", warmNs / 1e6,
                    warm.elapsedMs(), coldNs / 1e6, afterCold.minus(afterWarm).waits(),
                    afterCold.minus(afterWarm).waitTimeTotalNs() / 1e6);
        }
    }

    @Test
    void theStartUpKeyWarmsTheProducersInstance() throws Exception {
        Map<String, Object> p = producerProps(KAFKA.cluster().bootstrapServers());
        p.put("kmeta.metadata.prefetch.topics", "warm-by-key");
        try (Producer<String, String> producer = KmetaProducer.create(p)) {
            KafkaMetadata metadata = bridge(producer).metadata();
            await().atMost(Duration.ofSeconds(30)).until(() -> metadata.fetch().partitionCount("warm-by-key") == 3);
            MetadataStats before = metadata.stats();
            long ns = timedSend(producer, "warm-by-key");
            assertEquals(0, metadata.stats().minus(before).waits(), "no metadata wait");
            assertEquals(0, before.waits(), "nobody waited for the start-up prefetch either");
            report("KafkaProducer on kmeta with kmeta.metadata.prefetch.topics: first send() call %.3f ms", ns / 1e6);
        }
    }

    /** The time of the send() call itself (what blocks the application), then waits for the acknowledgement. */
    private static long timedSend(Producer<String, String> producer, String topic) throws Exception {
        long startNs = System.nanoTime();
        var sent = producer.send(new ProducerRecord<>(topic, "k", "v"));
        long ns = System.nanoTime() - startNs;
        sent.get(30, TimeUnit.SECONDS);
        return ns;
    }
}
