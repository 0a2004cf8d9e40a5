package dev.kmeta.producer;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import dev.kmeta.testkit.LogCapture;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.testkit.TestClients.millisSince;
import static dev.kmeta.testkit.TestClients.producerProps;
import static dev.kmeta.testkit.TestClients.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 39, item 1, on real brokers (two brokers and a controller of their own): a topic whose partition 1 has its
 * only replica on broker 1, and broker 1 stopped. With {@code kmeta.producer.leaderless.partition=hold} (the
 * default) a record for it stays queued, one WARN names the partition within {@code max.block.ms}, the producer's
 * kmeta handle lists it, and the record is delivered when the broker returns; with {@code fail} it fails within
 * {@code max.block.ms} + 50 ms, diagnosed, while records without key go to partition 0 (which has a leader). Each test
 * starts broker 1 again at its end.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KmetaProducerLeaderlessTest {
    private static final long MAX_BLOCK_MS = 2_000;
    /** The brokers are 0 and 1: partition 0 lives on {@link #UP}, partition 1 on this one. */
    private static final int DOWN = 1;
    private static final int UP = 0;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(2));

    @AfterEach
    void brokerBack() {
        KafkaCluster cluster = KAFKA.cluster();
        if (!cluster.runningBrokerIds().contains(DOWN)) {
            cluster.startBroker(DOWN);
        }
    }

    /** A topic with partition 0 on broker {@link #UP} and partition 1 on broker {@link #DOWN}, one replica each. */
    private static void createTopic(String topic) throws Exception {
        KAFKA.cluster().admin().createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(UP), 1, List.of(DOWN)))))
                .all().get(30, TimeUnit.SECONDS);
    }

    private static Map<String, Object> props(String mode) {
        Map<String, Object> p = producerProps(KAFKA.cluster().bootstrapServers());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS);
        if (mode != null) {
            p.put(KmetaProducer.LEADERLESS_PARTITION, mode);
        }
        return p;
    }

    /** Both partitions take a record; then broker 1 stops and the cluster shows partition 1 without a leader. */
    private static void warmThenStop(Producer<String, String> producer, String topic) throws Exception {
        for (int partition = 0; partition < 2; partition++) {
            producer.send(new ProducerRecord<>(topic, partition, null, "before")).get(30, TimeUnit.SECONDS);
        }
        KAFKA.cluster().stopBroker(DOWN);
        await().atMost(Duration.ofSeconds(30)).until(() -> KAFKA.cluster().leader(topic, 1) == -1);
    }

    @Test
    @Order(1)
    void holdNamesTheLeaderlessPartitionWithinMaxBlockMsOnceAndDeliversWhenTheBrokerReturns() throws Exception {
        String topic = "leaderless-hold";
        createTopic(topic);
        try (LogCapture log = LogCapture.at("warn", "dev.kmeta.producer");
             Producer<String, String> producer = KmetaProducer.create(props(null))) {
            warmThenStop(producer, topic);
            long start = System.nanoTime();
            List<Future<RecordMetadata>> held = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                held.add(producer.send(new ProducerRecord<>(topic, 1, null, "held-" + i)));
            }
            long sendMs = millisSince(start);
            String named = topic + "-1: no leader, its only replica, broker " + DOWN;
            await().atMost(Duration.ofMillis(MAX_BLOCK_MS)).until(() -> log.text().contains(named));
            long toldMs = millisSince(start);
            KafkaMetadata kmeta = KmetaProducer.metadataOf(producer).orElseThrow();
            Map<String, Long> listed = kmeta.leaderlessPartitions();
            report("hold: 20 sends to %s-1 returned in %d ms; the WARN came %d ms after the first; listed %s; log:%n%s",
                    topic, sendMs, toldMs, listed, log.text());
            assertTrue(listed.containsKey(topic + "-1"), "listed with how long: " + listed);
            assertTrue(held.stream().noneMatch(Future::isDone), "held, as kafka-clients holds them");
            assertEquals(1, log.text().lines().filter(l -> l.contains(named)).count(), "one line, not per record:\n"
                    + log.text());

            KAFKA.cluster().startBroker(DOWN);
            for (Future<RecordMetadata> f : held) {
                assertEquals(1, f.get(60, TimeUnit.SECONDS).partition(), "delivered when the broker returned");
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> !kmeta.leaderlessPartitions().containsKey(topic + "-1"));
        }
    }

    @Test
    @Order(2)
    void failFailsARecordForAPartitionWhoseEveryReplicaIsOfflineWithinMaxBlockMsAndKeylessRecordsGoOn()
            throws Exception {
        String topic = "leaderless-fail";
        createTopic(topic);
        try (Producer<String, String> producer = KmetaProducer.create(props("fail"))) {
            warmThenStop(producer, topic);
            long start = System.nanoTime();
            Future<RecordMetadata> f = producer.send(new ProducerRecord<>(topic, 1, null, "to the dead partition"));
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> f.get(MAX_BLOCK_MS + 10_000, TimeUnit.MILLISECONDS));
            long tookMs = millisSince(start);
            report("fail: the record for %s-1 failed after %d ms (max.block.ms %d): %s", topic, tookMs, MAX_BLOCK_MS,
                    e.getCause());
            assertTrue(tookMs <= MAX_BLOCK_MS + 50, "within max.block.ms + 50 ms: " + tookMs + " ms");
            KafkaMetadataTimeoutException kmeta = assertInstanceOf(KafkaMetadataTimeoutException.class, e.getCause());
            assertInstanceOf(TimeoutException.class, kmeta, "Kafka's type");
            assertEquals(Diagnosis.Cause.LEADER_NOT_AVAILABLE, kmeta.diagnosis().cause(), kmeta.getMessage());
            assertTrue(kmeta.getMessage().contains(topic + "-1") && kmeta.getMessage().contains("[" + DOWN + "]"),
                    "names the partition and the offline broker: " + kmeta.getMessage());

            // KafkaMetadata's own send path: kmeta.metadata.leaderless.partition=fail fails awaitLeader at once;
            // hold (the default) waits for a leader until the deadline
            Map<String, Object> native_ = producerProps(KAFKA.cluster().bootstrapServers());
            native_.put("kmeta.metadata.leaderless.partition", "fail");
            try (KafkaMetadata failing = KafkaMetadata.create(native_);
                 KafkaMetadata holding = KafkaMetadata.create(producerProps(KAFKA.cluster().bootstrapServers()))) {
                long t0 = System.nanoTime();
                KafkaMetadataTimeoutException n = assertThrows(KafkaMetadataTimeoutException.class,
                        () -> failing.awaitLeader(topic, 1, failing.newDeadline(Duration.ofMillis(MAX_BLOCK_MS))));
                long failMs = millisSince(t0);
                t0 = System.nanoTime();
                KafkaMetadataTimeoutException h = assertThrows(KafkaMetadataTimeoutException.class,
                        () -> holding.awaitLeader(topic, 1, holding.newDeadline(Duration.ofMillis(MAX_BLOCK_MS))));
                long holdMs = millisSince(t0);
                report("KafkaMetadata.awaitLeader on %s-1: fail mode %d ms (%s); hold %d ms", topic, failMs,
                        n.getMessage(), holdMs);
                assertEquals(Diagnosis.Cause.LEADER_NOT_AVAILABLE, n.diagnosis().cause(), n.getMessage());
                assertEquals(Diagnosis.Cause.LEADER_NOT_AVAILABLE, h.diagnosis().cause(), h.getMessage());
                assertTrue(failMs < MAX_BLOCK_MS / 2 && holdMs >= MAX_BLOCK_MS - 50,
                        "fail at once (" + failMs + " ms), hold to the deadline (" + holdMs + " ms)");
            }

            for (int i = 0; i < 20; i++) { // without key: partition 0, which has a leader
                assertEquals(0, producer.send(new ProducerRecord<>(topic, "keyless-" + i)).get(30, TimeUnit.SECONDS)
                        .partition());
            }
        }
    }

    /**
     * Hold, at the expiry: each record's exception is kafka-clients' own TimeoutException with kmeta's diagnosis as
     * its cause, and one WARN names the partition, the cause and how many records expired.
     */
    @Test
    @Order(3)
    void holdAtTheExpiryLogsOneLineNamingThePartitionTheCauseAndHowManyRecords() throws Exception {
        String topic = "leaderless-expiry";
        createTopic(topic);
        Map<String, Object> p = props("hold");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 3_000);
        try (LogCapture log = LogCapture.at("warn", "dev.kmeta.producer");
             Producer<String, String> producer = KmetaProducer.create(p)) {
            warmThenStop(producer, topic);
            List<Future<RecordMetadata>> queued = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                queued.add(producer.send(new ProducerRecord<>(topic, 1, null, "expires-" + i)));
            }
            for (Future<RecordMetadata> f : queued) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
                assertInstanceOf(TimeoutException.class, e.getCause());
                assertEquals(Diagnosis.Cause.LEADER_NOT_AVAILABLE, Diagnosis.from(e.getCause()).orElseThrow().cause(),
                        String.valueOf(e.getCause()));
            }
            String expired = topic + "-1: 5 record(s) expired after delivery.timeout.ms (3 s): LEADER_NOT_AVAILABLE";
            await().atMost(Duration.ofSeconds(5)).until(() -> log.text().contains(expired));
            report("hold, expiry: %s", log.text());
            assertEquals(1, log.text().lines().filter(l -> l.contains("record(s) expired")).count(), log.text());
        }
    }

    @Test
    @Order(4)
    void aModeOtherThanHoldOrFailIsAConfigExceptionNamingTheKey() {
        ConfigException e = assertThrows(ConfigException.class, () -> KmetaProducer.create(props("drop")));
        assertTrue(e.getMessage().contains(KmetaProducer.LEADERLESS_PARTITION), e.getMessage());
    }
}
