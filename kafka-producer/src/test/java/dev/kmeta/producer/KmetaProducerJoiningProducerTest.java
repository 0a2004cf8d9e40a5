package dev.kmeta.producer;

import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import dev.kmeta.testkit.TestClients;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.kmeta.producer.ProducerIt.Kind;

import static dev.kmeta.producer.ProducerIt.bridge;
import static dev.kmeta.testkit.TestClients.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 37: a producer joining a shared kmeta instance builds no request from data no broker confirmed since it
 * asked for it. A transactional producer commits offsets for a topic; the topic is deleted and re-created under its
 * name while nothing refreshes it (no producer writes to it, so no produce error does); a second transactional
 * producer joins the instance (the first keeps it open, as a Streams application's other threads do) and commits
 * offsets for the topic. kafka-clients 4.4 builds that TxnOffsetCommit once, with the topic ids of the producer's
 * metadata, and retries it unchanged on UNKNOWN_TOPIC_ID: with the deleted topic's id it never committed and
 * sendOffsetsToTransaction timed out at max.block.ms. 4.0-4.3 commit by name (the kafka-clients-compat run).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KmetaProducerJoiningProducerTest {
    private static final short TXN_OFFSET_COMMIT = 28;
    private static final int MAX_BLOCK_MS = 15_000;
    private static final long CLOSE_TIMEOUT_MS = 2_000;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(1).withProxies());

    /** The Streams case: offsets of an input topic no producer writes to. */
    @Tag("kafka-clients-compat")
    @Test
    void aJoiningProducerCommitsOffsetsOfARecreatedTopicNobodyProducesTo() throws Exception {
        run("consumed-only", false);
    }

    /** The same for a topic the instance's producers wrote to before it was deleted; the joiner writes to it too. */
    @Tag("kafka-clients-compat")
    @Test
    void aJoiningProducerCommitsOffsetsOfARecreatedTopicItsSiblingProducedTo() throws Exception {
        run("produced-to", true);
    }

    /**
     * A transactional request kafka-clients retries (the broker's proxy blackholed, sendOffsetsToTransaction timed
     * out) keeps neither producer's close(timeout) past its timeout: kafka-clients force-closes its Sender then, and
     * the route's stand-in holds nothing on the network thread. Stock and kmeta side by side.
     */
    @Tag("kafka-clients-compat")
    @Test
    void closeWithATimeoutReturnsWhileATransactionalRequestIsRetried() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        String topic = "retried";
        cluster.createTopic(topic, 1, 1);
        for (Kind kind : Kind.values()) {
            Map<String, Object> p = txProps(topic + "-" + kind);
            p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1_000);
            p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000);
            Producer<String, String> producer = kind.create(p);
            long tookMs;
            try {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(topic, "k", "v")).get(30, TimeUnit.SECONDS);
                cluster.proxy(cluster.brokerIds().get(0)).blackhole();
                assertThrows(org.apache.kafka.common.errors.TimeoutException.class, () -> producer
                        .sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(3)),
                                new ConsumerGroupMetadata(topic + "-group")));
                long start = System.nanoTime();
                producer.close(Duration.ofMillis(CLOSE_TIMEOUT_MS));
                tookMs = TestClients.millisSince(start);
            } finally {
                TestClients.resetProxies(cluster);
                cluster.proxy(cluster.brokerIds().get(0)).pass();
            }
            report("%s: close(%d ms) with TxnOffsetCommit retried took %d ms", kind, CLOSE_TIMEOUT_MS, tookMs);
            // the timeout, plus what a loaded machine adds to the Sender's force-close and thread join
            assertTrue(tookMs < CLOSE_TIMEOUT_MS + 3_000, kind + ": close(timeout) took " + tookMs + " ms");
        }
    }

    private void run(String topic, boolean produced) throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic(topic, 3, 1);
        String out = topic + "-out";
        cluster.createTopic(out, 1, 1);
        String group = topic + "-group";
        Producer<String, String> first = KmetaProducer.create(txProps(topic + "-1"));
        try {
            first.initTransactions();
            first.beginTransaction();
            first.send(new ProducerRecord<>(produced ? topic : out, "k", "before")).get(30, TimeUnit.SECONDS);
            first.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(1)),
                    new ConsumerGroupMetadata(group));
            first.commitTransaction();
            KafkaMetadata shared = bridge(first).metadata();
            // 4.4's sendOffsetsToTransaction subscribes the topic (add(topics)); 4.0-4.3 commit by name and do not
            UUID oldId = kafkaClients44() ? shared.fetch().topic(topic).topicId() : null;

            cluster.deleteTopic(topic);
            cluster.createTopic(topic, 3, 1);
            UUID newId = toUuid(cluster, topic);
            if (kafkaClients44()) {
                assertNotEquals(oldId, newId, "re-created under a new id");
                assertEquals(oldId, shared.fetch().topic(topic).topicId(),
                        "the bad case is set: the shared instance still holds the deleted topic's id");
            }

            TestClients.resetProxies(cluster);
            Producer<String, String> joining = KmetaProducer.create(txProps(topic + "-2"));
            try {
                joining.initTransactions();
                joining.beginTransaction();
                if (!produced) { // a replacement writing where its sibling writes starts warm: no Metadata request
                    long requests = shared.stats().requestsSent();
                    joining.send(new ProducerRecord<>(out, "k", "warm")).get(30, TimeUnit.SECONDS);
                    assertEquals(requests, shared.stats().requestsSent(), "the joiner's first send asked nothing");
                }
                long start = System.nanoTime();
                joining.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(7)),
                        new ConsumerGroupMetadata(group));
                if (produced) {
                    joining.send(new ProducerRecord<>(topic, "k", "after")).get(30, TimeUnit.SECONDS);
                }
                joining.commitTransaction();
                report("%s: the joining producer committed in %d ms; %d TxnOffsetCommit request(s); refreshes asked "
                                + "to confirm: %d", topic, TestClients.millisSince(start),
                        txnOffsetCommits(cluster), bridge(joining).confirmationRefreshes());
                assertEquals(1, txnOffsetCommits(cluster), "one TxnOffsetCommit, answered: none retried");
                if (kafkaClients44()) {
                    assertEquals(newId, shared.fetch().topic(topic).topicId(),
                            "4.4 commits by id: kmeta refreshed the topic before the request was built");
                }
                // once confirmed the topic is trusted as a stock producer trusts its own metadata: later commits
                // ask nothing (the steady state of an exactly-once application costs no Metadata request)
                long refreshes = bridge(joining).confirmationRefreshes();
                long requests = shared.stats().requestsSent();
                for (int i = 0; i < 5; i++) {
                    joining.beginTransaction();
                    joining.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0),
                            new OffsetAndMetadata(8 + i)), new ConsumerGroupMetadata(group));
                    joining.commitTransaction();
                }
                assertEquals(refreshes, bridge(joining).confirmationRefreshes(), "no refresh for a confirmed topic");
                assertEquals(requests, shared.stats().requestsSent(), "no Metadata request at steady state");
            } finally {
                joining.close(Duration.ofMillis(CLOSE_TIMEOUT_MS)); // a TxnOffsetCommit retried forever kept close()
            }
        } finally {
            first.close(Duration.ofMillis(CLOSE_TIMEOUT_MS));
        }
        // the coordinator shows a transaction's offsets once its markers are written, after commitTransaction
        // returned (a loaded run read 11, the one before): wait for the last one, bounded
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertEquals(12, cluster.admin()
                .listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                .get(new TopicPartition(topic, 0)).offset(), "the joining producer's last offset is the group's"));
    }

    private static UUID toUuid(KafkaCluster cluster, String topic) throws Exception {
        org.apache.kafka.common.Uuid id = cluster.admin().describeTopics(List.of(topic)).allTopicNames()
                .get(30, TimeUnit.SECONDS).get(topic).topicId();
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    private static long txnOffsetCommits(KafkaCluster cluster) {
        long n = 0;
        for (int id : cluster.brokerIds()) {
            n += cluster.proxy(id).requestCount(TXN_OFFSET_COMMIT);
        }
        return n;
    }

    private static Map<String, Object> txProps(String transactionalId) {
        Map<String, Object> p = TestClients.producerProps(KAFKA.cluster().proxiedBootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        return p;
    }

    private static boolean kafkaClients44() {
        return System.getProperty("kmeta.test.kafkaClientsVersion", "4.4").startsWith("4.4");
    }
}
