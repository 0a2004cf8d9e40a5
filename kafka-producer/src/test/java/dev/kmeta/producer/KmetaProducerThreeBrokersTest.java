package dev.kmeta.producer;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.producer.ProducerIt.Kind;
import dev.kmeta.producer.internal.ProducerBridge;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.kmeta.producer.ProducerIt.bridge;
import static dev.kmeta.testkit.TestClients.metadataRequests;
import static dev.kmeta.testkit.TestClients.millisSince;
import static dev.kmeta.testkit.TestClients.producerProps;
import static dev.kmeta.testkit.TestClients.report;
import static dev.kmeta.testkit.TestClients.resetProxies;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kmeta-backed KafkaProducers on three brokers, each behind a proxy that counts Metadata requests: a lookup storm
 * on a missing topic (20 producers x 10 threads, beside 20 stock producers); a missing topic, a partition beyond the
 * count and a leaderless partition, each reaching the application with kmeta's cause; and a leader stopped under
 * load, with no failed send and the produce answers' leader hints reaching kmeta. Ordered: the leaderless-partition
 * test stops a broker for good, so it runs last.
 *
 * <p>The kafka-clients-compat run (the tagged tests on kafka-clients 4.0, brokers in child JVMs) starts one broker:
 * its tests (the storm's bound, the missing topic and partition) need no second one, and the failover and
 * leaderless-partition tests, which do, are not in it.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KmetaProducerThreeBrokersTest {
    /** The diagnosed sends' budget (3-5 UNKNOWN_TOPIC_OR_PARTITION answers come within 1.5 s, 3-4 within 1 s). */
    private static final long MAX_BLOCK_MS = 1_000;
    /** The leaderless record's budget and delivery.timeout.ms: at least request.timeout.ms (1 s) + linger.ms. */
    private static final long LEADERLESS_BLOCK_MS = 1_500;
    /**
     * The storm: 10 windows of retry.backoff.max.ms, each send blocking max.block.ms (two sends per thread and
     * window). Shorter windows than the default 1 s make the same storm in half the time: kmeta's requests are bound
     * by the backoff (about one per window once it has grown), the callers' count and rate do not move it.
     */
    private static final int STORM_RETRY_BACKOFF_MAX_MS = 500;
    private static final int STORM_MAX_BLOCK_MS = STORM_RETRY_BACKOFF_MAX_MS;
    private static final long STORM_MS = 10L * STORM_RETRY_BACKOFF_MAX_MS;

    /** The kafka-clients-compat run: brokers in child JVMs, the tagged tests only. */
    private static final boolean COMPAT_RUN = System.getProperty("kmeta.testkit.kafka.distribution") != null;
    private static final int BROKERS = COMPAT_RUN ? 1 : 3;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(BROKERS)
            .withProxies());

    private static Map<String, Object> fastProps() {
        Map<String, Object> p = producerProps(KAFKA.cluster().proxiedBootstrapServers());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS);
        return p;
    }

    /** The exception a send's future failed with, within max.block.ms + 1 s (or the given limit) of send(). */
    private static Throwable failureOf(Producer<String, String> producer, ProducerRecord<String, String> record,
                                       long limitMs) {
        long start = System.nanoTime();
        Future<?> f = producer.send(record);
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(limitMs + 10_000,
                TimeUnit.MILLISECONDS));
        long tookMs = millisSince(start);
        report("send to %s-%s failed after %d ms: %s", record.topic(), record.partition(), tookMs, e.getCause());
        assertTrue(tookMs <= limitMs, "within " + limitMs + " ms: " + tookMs + " ms");
        return e.getCause();
    }

    /** What a storm's threads saw. */
    private record StormResult(long requests, long sends, long diagnosed, long fallbacks, long other) {
    }

    /**
     * The storm's producer settings, the same for both kinds: sends of {@code STORM_MAX_BLOCK_MS}, and a missing
     * topic asked again at most every {@code STORM_RETRY_BACKOFF_MAX_MS} (10 of those windows make the storm).
     */
    private static Map<String, Object> stormProps() {
        Map<String, Object> p = producerProps(KAFKA.cluster().proxiedBootstrapServers());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, STORM_MAX_BLOCK_MS);
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, STORM_RETRY_BACKOFF_MAX_MS);
        return p;
    }

    private static StormResult storm(Kind kind, int producers, int threads, long durationMs) throws Exception {
        resetProxies(KAFKA.cluster());
        List<Producer<String, String>> list = new ArrayList<>();
        AtomicLong sends = new AtomicLong();
        AtomicLong diagnosed = new AtomicLong();
        AtomicLong fallbacks = new AtomicLong();
        AtomicLong other = new AtomicLong();
        try {
            for (int i = 0; i < producers; i++) {
                list.add(kind.create(stormProps()));
            }
            long end = System.nanoTime() + durationMs * 1_000_000;
            CountDownLatch done = new CountDownLatch(producers * threads);
            for (Producer<String, String> producer : list) {
                for (int t = 0; t < threads; t++) {
                    Thread thread = new Thread(() -> {
                        try {
                            while (System.nanoTime() - end < 0) {
                                sends.incrementAndGet();
                                try {
                                    producer.send(new ProducerRecord<>("storm-missing", "v")).get();
                                    other.incrementAndGet();
                                } catch (ExecutionException e) {
                                    if (Diagnosis.from(e).isPresent()) {
                                        diagnosed.incrementAndGet();
                                    } else if (e.getCause() instanceof TimeoutException) {
                                        fallbacks.incrementAndGet();
                                    } else {
                                        other.incrementAndGet();
                                    }
                                }
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            done.countDown();
                        }
                    }, "it-storm-" + kind);
                    thread.setDaemon(true);
                    thread.start();
                }
            }
            assertTrue(done.await(durationMs + 30_000, TimeUnit.MILLISECONDS), "the storm ends");
            return new StormResult(metadataRequests(KAFKA.cluster()), sends.get(), diagnosed.get(), fallbacks.get(),
                    other.get());
        } finally {
            list.forEach(Producer::close);
        }
    }

    @Tag("kafka-clients-compat")
    @Test
    @Order(1)
    void aStormOfTwentyProducersOnAMissingTopicMakesFewMetadataRequests() throws Exception {
        // The stock storm is the comparison printed beside kmeta's and asserts nothing: the kafka-clients-compat
        // run (brokers in child JVMs, kafka.clients.compat.version) runs only kmeta's, whose bounds it checks.
        StormResult stock = COMPAT_RUN ? null : storm(Kind.STOCK, 20, 10, STORM_MS);
        StormResult kmeta = storm(Kind.KMETA, 20, 10, STORM_MS);
        report("storm, 20 producers x 10 threads x %d ms on a missing topic, max.block.ms=%d, retry.backoff.max.ms=%d:"
                        + " Metadata requests kmeta %d vs stock %s", STORM_MS, STORM_MAX_BLOCK_MS,
                STORM_RETRY_BACKOFF_MAX_MS, kmeta.requests(), stock == null ? "(not run)" : stock.requests());
        report("  stock %s", stock == null ? "(not run in the kafka-clients-compat run)" : stock);
        report("  kmeta %s", kmeta);
        // at most two per backoff window of the storm (10 windows), however many callers
        assertTrue(kmeta.requests() <= 20, "kmeta-backed: " + kmeta.requests() + " Metadata requests");
        assertTrue(kmeta.sends() > 1_000, "the storm ran: " + kmeta.sends());
        assertEquals(0, kmeta.other(), "every send failed with a timeout");
        assertEquals(0, kmeta.fallbacks(),
                "kmeta's diagnosis reached the application (fallbacks to KafkaProducer's fixed message: "
                        + kmeta.fallbacks() + " of " + kmeta.sends() + ")");
    }

    @Tag("kafka-clients-compat")
    @Test
    @Order(2)
    void aMissingTopicIsNamed() {
        try (Producer<String, String> producer = KmetaProducer.create(fastProps())) {
            Throwable e = failureOf(producer, new ProducerRecord<>("no-such-topic", "v"), MAX_BLOCK_MS + 1_000);
            KafkaMetadataTimeoutException kmeta = assertInstanceOf(KafkaMetadataTimeoutException.class, e);
            assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, kmeta.diagnosis().cause(), e.getMessage());
            assertTrue(e.getMessage().startsWith("Topic no-such-topic not present in metadata after ")
                    && e.getMessage().contains("TOPIC_NOT_FOUND: "), e.getMessage());
            assertTrue(e.getMessage().contains("UNKNOWN_TOPIC_OR_PARTITION"), e.getMessage());

            // KafkaProducer's calls one by one, as its waitOnMetadata makes them: awaitUpdate returns at kmeta's
            // timeout; getError answers the same twice (the fallback message reads it twice); then
            // maybeThrowExceptionForTopic throws kmeta's exception, once.
            ProducerBridge b = bridge(producer);
            int version = b.requestUpdateForTopic("no-such-topic");
            try {
                b.awaitUpdate(version, 300);
            } catch (InterruptedException ie) {
                throw new AssertionError(ie);
            }
            assertEquals(org.apache.kafka.common.protocol.Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    b.getError("no-such-topic"));
            assertEquals(b.getError("no-such-topic"), b.getError("no-such-topic"));
            KafkaMetadataTimeoutException thrown = assertThrows(KafkaMetadataTimeoutException.class,
                    () -> b.maybeThrowExceptionForTopic("no-such-topic"));
            assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, thrown.diagnosis().cause());
            b.maybeThrowExceptionForTopic("no-such-topic"); // once
        }
    }

    /**
     * A sending thread that gets no CPU for longer than {@code kmeta.producer.give.up.early.ms} would see
     * KafkaProducer's own clock end the wait with its fixed message; giving up 0 ms early makes that the usual
     * case. kmeta's kept timeout is thrown from the fetch() KafkaProducer makes before it reads its clock, so the
     * send still fails with kmeta's exception and message. Three sends on two threads: two wait at once, the third
     * on a thread whose send has just timed out.
     */
    @Tag("kafka-clients-compat")
    @Test
    @Order(2)
    void aSendWhoseThreadIsLateForItsDeadlineStillGetsKmetasTimeout() throws Exception {
        Map<String, Object> p = fastProps();
        p.put(dev.kmeta.producer.internal.KmetaProducers.GIVE_UP_EARLY_MS, 0);
        ExecutorService threads = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "it-late-send");
            t.setDaemon(true);
            return t;
        });
        try (Producer<String, String> producer = KmetaProducer.create(p)) {
            List<Future<Throwable>> sends = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                sends.add(threads.submit(() -> failureOf(producer, new ProducerRecord<>("still-no-such-topic", "v"),
                        MAX_BLOCK_MS + 1_000)));
            }
            for (Future<Throwable> send : sends) {
                Throwable e = resultOf(send);
                KafkaMetadataTimeoutException kmeta = assertInstanceOf(KafkaMetadataTimeoutException.class, e,
                        "kmeta's exception, not KafkaProducer's fallback: " + e + " (cause " + e.getCause() + ")");
                assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, kmeta.diagnosis().cause());
                assertTrue(e.getMessage().startsWith("Topic still-no-such-topic not present in metadata after ")
                        && e.getMessage().contains("TOPIC_NOT_FOUND"), e.getMessage());
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /** What a send task returned; its assertion error, if it failed one, as the test's own. */
    private static Throwable resultOf(Future<Throwable> send) throws Exception {
        try {
            return send.get(2 * MAX_BLOCK_MS + 30_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AssertionError a) {
                throw a;
            }
            throw e;
        }
    }

    @Tag("kafka-clients-compat")
    @Test
    @Order(3)
    void aPartitionBeyondTheCountIsNamed() {
        KAFKA.cluster().createTopic("two-partitions", 2, BROKERS);
        try (Producer<String, String> producer = KmetaProducer.create(fastProps())) {
            Throwable e = failureOf(producer, new ProducerRecord<>("two-partitions", 5, "k", "v"),
                    MAX_BLOCK_MS + 1_000);
            assertEquals(Diagnosis.Cause.PARTITION_OUT_OF_RANGE, Diagnosis.from(e).orElseThrow().cause(),
                    e.getMessage());
            assertTrue(e instanceof TimeoutException && e.getMessage().contains("Partition 5 of topic two-partitions")
                    && e.getMessage().contains("PARTITION_OUT_OF_RANGE"), e.getMessage());
            // The partition that exists still works on the same producer.
            assertEquals(1, assertDoesNotFail(producer, new ProducerRecord<>("two-partitions", 1, "k", "v")));
        }
    }

    private static int assertDoesNotFail(Producer<String, String> producer, ProducerRecord<String, String> record) {
        try {
            return producer.send(record).get(30, TimeUnit.SECONDS).partition();
        } catch (Exception e) {
            throw new AssertionError("send failed", e);
        }
    }

    @Test
    @Order(4)
    void aLeaderStoppedUnderLoadFailsNoSendAndItsHintsReachKmeta() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        String topic = "failover";
        cluster.createTopic(topic, 6, 3, Map.of("min.insync.replicas", "2"));
        resetProxies(cluster);
        Map<String, Object> p = producerProps(cluster.proxiedBootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        Producer<String, String> kmeta = KmetaProducer.create(p);
        Producer<String, String> stock = Kind.STOCK.create(producerProps(cluster.proxiedBootstrapServers()));
        ProducerBridge bridge = bridge(kmeta);
        long hints0 = bridge.metadata().stats().leaderHintsApplied();
        long ignored0 = bridge.metadata().stats().leaderHintsIgnored();
        long sent0 = bridge.metadata().stats().requestsSent();
        AtomicLong kmetaAcked = new AtomicLong();
        AtomicLong kmetaFailed = new AtomicLong();
        AtomicLong stockAcked = new AtomicLong();
        AtomicLong stockFailed = new AtomicLong();
        ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "it-failover-pacer");
            t.setDaemon(true);
            return t;
        });
        AtomicLong seq = new AtomicLong();
        try {
            // 500 records/s to each producer: 5 every 10 ms.
            pacer.scheduleAtFixedRate(() -> {
                for (int i = 0; i < 5; i++) {
                    String key = "k" + seq.incrementAndGet();
                    kmeta.send(new ProducerRecord<>(topic, key, "v"), (md, e) ->
                            (e == null ? kmetaAcked : kmetaFailed).incrementAndGet());
                    stock.send(new ProducerRecord<>(topic, key, "v"), (md, e) ->
                            (e == null ? stockAcked : stockFailed).incrementAndGet());
                }
            }, 0, 10, TimeUnit.MILLISECONDS);
            // Sending before, across and after the stop (the sends go on while stopBroker moves the leadership and
            // waits for the broker to end) and across the restart; each phase runs until its count of acks.
            await().atMost(Duration.ofSeconds(30)).until(() -> kmetaAcked.get() >= 500);
            int leader = cluster.leader(topic, 0);
            long stoppedAt = System.nanoTime();
            cluster.stopBroker(leader);
            long ackedAtStop = kmetaAcked.get();
            await().atMost(Duration.ofSeconds(60)).until(() -> kmetaAcked.get() >= ackedAtStop + 1_000);
            cluster.startBroker(leader);
            long ackedAtStart = kmetaAcked.get();
            await().atMost(Duration.ofSeconds(60)).until(() -> kmetaAcked.get() >= ackedAtStart + 500);
            pacer.shutdownNow();
            assertTrue(pacer.awaitTermination(10, TimeUnit.SECONDS));
            kmeta.flush();
            stock.flush();
            long hints = bridge.metadata().stats().leaderHintsApplied() - hints0;
            long ignored = bridge.metadata().stats().leaderHintsIgnored() - ignored0;
            long kmetaRequests = bridge.metadata().stats().requestsSent() - sent0;
            long all = metadataRequests(cluster);
            report("failover (leader %d of %s-0 stopped, restarted, %d ms from the stop to the end): kmeta-backed %d "
                            + "acked, %d failed, %d KIP-951 hints (%d older than kmeta's snapshot, dropped; of the "
                            + "rest %d applied, %d older than kmeta's own refresh), %d update requests from the "
                            + "producer, %d Metadata requests; stock %d acked, %d failed, %d Metadata requests", leader,
                    topic, millisSince(stoppedAt), kmetaAcked.get(), kmetaFailed.get(), bridge.leaderHints(),
                    bridge.staleLeaderHints(), hints, ignored,
                    bridge.updateRequests(), kmetaRequests, stockAcked.get(), stockFailed.get(),
                    all - kmetaRequests);
            assertEquals(0, kmetaFailed.get(), "no failed send");
            assertEquals(seq.get(), kmetaAcked.get(), "every record acknowledged");
            assertTrue(bridge.leaderHints() > 0, "the produce answers carried leader hints to the stand-in");
            // each hint: dropped as older than kmeta's snapshot, or taken by kmeta (applied, or older than what
            // kmeta knew by the time it looked); kmeta's counts are its instance's (>=: any other user's hints too)
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertTrue(bridge.staleLeaderHints()
                    + bridge.metadata().stats().leaderHintsApplied() - hints0
                    + bridge.metadata().stats().leaderHintsIgnored() - ignored0 >= bridge.leaderHints(),
                    "every hint dropped as stale or taken by kmeta"));
        } finally {
            pacer.shutdownNow();
            kmeta.close();
            stock.close();
        }
    }

    @Test
    @Order(5)
    void aLeaderlessPartitionFailsItsRecordWithKmetasDiagnosis() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        String topic = "rf1-on-broker-2";
        cluster.admin().createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(2))))).all()
                .get(30, TimeUnit.SECONDS);
        Map<String, Object> p = fastProps();
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) LEADERLESS_BLOCK_MS);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, LEADERLESS_BLOCK_MS);
        try (Producer<String, String> producer = KmetaProducer.create(p)) {
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() ->
                    producer.send(new ProducerRecord<>(topic, "before")).get(10, TimeUnit.SECONDS) != null);
            cluster.stopBroker(2);
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.leader(topic, 0) == -1);
            Throwable e = failureOf(producer, new ProducerRecord<>(topic, "after"), LEADERLESS_BLOCK_MS + 1_000);
            assertInstanceOf(TimeoutException.class, e, "kafka-clients' own expiry");
            Diagnosis d = Diagnosis.from(e).orElseThrow(() -> new AssertionError("no diagnosis in " + e));
            report("expired record: %s, caused by %s", e.getMessage(), e.getCause());
            assertEquals(Diagnosis.Cause.LEADER_NOT_AVAILABLE, d.cause(), d.message());
            assertTrue(e.getCause().getMessage().contains("LEADER_NOT_AVAILABLE"), e.getCause().getMessage());
        }
    }
}
