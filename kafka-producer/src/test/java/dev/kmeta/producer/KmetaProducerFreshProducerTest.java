package dev.kmeta.producer;

import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.producer.ProducerIt.bridge;
import static dev.kmeta.testkit.TestClients.metadataRequests;
import static dev.kmeta.testkit.TestClients.millisSince;
import static dev.kmeta.testkit.TestClients.producerProps;
import static dev.kmeta.testkit.TestClients.report;
import static dev.kmeta.testkit.TestClients.resetProxies;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Issue 28, where a new producer on kmeta's route did worse than a stock one, on one real broker behind a proxy (it
 * advertises the proxy's address, which is also the bootstrap address): a fresh producer's first send is not held
 * for kmeta's probe of a leader the bootstrap answer proved reachable, and it costs the broker one Metadata request,
 * as a stock producer's does.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KmetaProducerFreshProducerTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().withProxies());

    /**
     * Each producer is the first of its kmeta instance (the previous one closed it): its first send waited for the
     * topic, and the leader it learned is at the address that answered, so the send goes on at once. Before, it was
     * held until kmeta's probe connected to the leader, which came a probe scan interval (250 ms) after the answer.
     */
    @Test
    void aFreshProducersFirstSendIsNotHeldForALeaderAtTheAddressThatAnswered() throws Exception {
        KAFKA.cluster().createTopic("first-send", 1, 1);
        String bootstrap = KAFKA.cluster().proxiedBootstrapServers();
        for (int i = 0; i < 3; i++) {
            long startNs = System.nanoTime();
            try (Producer<String, String> p = KmetaProducer.create(producerProps(bootstrap))) {
                p.send(new ProducerRecord<>("first-send", "v")).get(30, TimeUnit.SECONDS);
                report("fresh producer %d: created and first record acknowledged in %d ms", i, millisSince(startNs));
                assertEquals(0, bridge(p).leaderHolds(), "the first send was not held for the leader");
            }
        }
    }

    /**
     * A fresh producer that sends right after it was created asks for its topic in its instance's first Metadata
     * request, as a stock producer does: one request per fresh producer at the broker's proxy, not a topicless
     * start-up request followed by one for the topic. ({@code retry.backoff.ms}, how long kmeta's start-up request
     * waits for a first topic, is 1 s here so that a slow producer construction on a loaded machine fits in it.)
     */
    @Test
    void aFreshProducerAsksForItsTopicInItsInstancesFirstRequest() throws Exception {
        KAFKA.cluster().createTopic("one-request", 1, 1);
        String bootstrap = KAFKA.cluster().proxiedBootstrapServers();
        for (int i = -1; i < 3; i++) { // -1: not counted (the new topic's leader settles on the broker meanwhile)
            Map<String, Object> props = producerProps(bootstrap);
            props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 1_000);
            resetProxies(KAFKA.cluster());
            long sent;
            try (Producer<String, String> p = KmetaProducer.create(props)) {
                p.send(new ProducerRecord<>("one-request", "v")).get(30, TimeUnit.SECONDS);
                sent = bridge(p).metadata().stats().requestsSent();
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> metadataRequests(KAFKA.cluster()) >= sent);
            report("fresh producer %d: %d Metadata request(s) at the proxy", i, metadataRequests(KAFKA.cluster()));
            if (i < 0) {
                continue;
            }
            assertEquals(1, sent, "kmeta asked once, with the topic");
            assertEquals(1, metadataRequests(KAFKA.cluster()), "one Metadata request at the broker");
        }
    }
}
