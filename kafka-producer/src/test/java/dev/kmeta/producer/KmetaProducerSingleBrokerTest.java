package dev.kmeta.producer;

import dev.kmeta.sender.internal.Handles;
import dev.kmeta.testkit.TestClients;
import dev.kmeta.producer.ProducerIt.Kind;
import dev.kmeta.producer.internal.ProducerBridge;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.errors.InterruptException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static dev.kmeta.producer.ProducerIt.bridge;
import static dev.kmeta.testkit.TestClients.metadataRequests;
import static dev.kmeta.testkit.TestClients.producerProps;
import static dev.kmeta.testkit.TestClients.report;
import static dev.kmeta.testkit.TestClients.resetProxies;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kmeta-backed KafkaProducers on one broker (behind a proxy). Parity: the same test body on a stock KafkaProducer and
 * on a kmeta-backed one: 10,000 records with acks=all and
 * idempotence, all acknowledged in order per partition; a transaction committed and one aborted, each with
 * sendOffsetsToTransaction, read back with a read_committed consumer; the results equal. For the kmeta-backed run,
 * every Metadata request the broker's proxy saw is one kmeta sent (the producer's own network client sends none).
 * Then: the producer's {@code metadata-age} metric reads kmeta's age;
 * an interrupt ends a send blocked on metadata at once; closing producers releases the instance.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KmetaProducerSingleBrokerTest {
    private static final int RECORDS = 10_000;
    private static final int PARTITIONS = 3;
    private static final int COMMITTED = 50;
    private static final int ABORTED = 30;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().withProxies());

    /** What one run produced, comparable across the two kinds of producer. */
    record Result(Map<Integer, Integer> ackedPerPartition, int failed, boolean inOrderPerPartition,
                  int committedRead, int abortedRead, long groupOffset) {
    }

    @Tag("kafka-clients-compat")
    @Test
    void stockAndKmetaProducersGiveTheSameResults() throws Exception {
        resetProxies(KAFKA.cluster());
        Result stock = run(Kind.STOCK);
        long stockRequests = metadataRequests(KAFKA.cluster());

        resetProxies(KAFKA.cluster());
        AtomicReference<long[]> seen = new AtomicReference<>();
        Result kmeta = run(Kind.KMETA, seen);
        report("parity: stock %s (%d Metadata requests at the proxy); kmeta %s (%d at the proxy, of which kmeta sent "
                        + "%d, before the transactions)", stock, stockRequests, kmeta, seen.get()[0], seen.get()[1]);

        assertEquals(new Result(stock.ackedPerPartition(), 0, true, COMMITTED, 0, 42), stock, "the stock baseline");
        assertEquals(RECORDS, stock.ackedPerPartition().values().stream().mapToInt(Integer::intValue).sum());
        assertEquals(stock, kmeta);
        assertEquals(seen.get()[1], seen.get()[0],
                "every Metadata request at the proxy came from kmeta: the producer's own client sent none");
    }

    private Result run(Kind kind) throws Exception {
        return run(kind, new AtomicReference<>());
    }

    private Result run(Kind kind, AtomicReference<long[]> kmetaSeen) throws Exception {
        String topic = "parity-" + kind.name().toLowerCase();
        String txTopic = topic + "-tx";
        KAFKA.cluster().createTopic(topic, PARTITIONS, 1);
        KAFKA.cluster().createTopic(txTopic, 1, 1);
        Map<String, Object> p = producerProps(KAFKA.cluster().proxiedBootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);

        int[] partitionOf = new int[RECORDS];
        long[] offsetOf = new long[RECORDS];
        AtomicInteger failed = new AtomicInteger();
        Map<Integer, Integer> acked = new ConcurrentHashMap<>();
        try (Producer<String, String> producer = kind.create(p)) {
            for (int i = 0; i < RECORDS; i++) {
                int seq = i;
                producer.send(new ProducerRecord<>(topic, "key-" + (i % 30), "v" + i), (md, e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                        return;
                    }
                    partitionOf[seq] = md.partition();
                    offsetOf[seq] = md.offset();
                    acked.merge(md.partition(), 1, Integer::sum);
                });
            }
            producer.flush();
            if (kind == Kind.KMETA) {
                ProducerBridge b = bridge(producer);
                // Metadata requests reach the proxy a moment after kmeta counts them sent.
                await().atMost(Duration.ofSeconds(5)).until(() ->
                        metadataRequests(KAFKA.cluster()) >= b.metadata().stats().requestsSent());
                kmetaSeen.set(new long[] {metadataRequests(KAFKA.cluster()), b.metadata().stats().requestsSent()});
            }
        }
        boolean inOrder = true;
        long[] last = new long[PARTITIONS];
        java.util.Arrays.fill(last, -1);
        for (int i = 0; i < RECORDS; i++) {
            if (offsetOf[i] <= last[partitionOf[i]]) {
                inOrder = false;
            }
            last[partitionOf[i]] = offsetOf[i];
        }

        String group = "parity-group-" + kind;
        Map<String, Object> tx = new HashMap<>(p);
        tx.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "parity-tx-" + kind);
        tx.put(ProducerConfig.CLIENT_ID_CONFIG, p.get(ProducerConfig.CLIENT_ID_CONFIG) + "-tx");
        try (Producer<String, String> producer = kind.create(tx)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < COMMITTED; i++) {
                producer.send(new ProducerRecord<>(txTopic, "c" + i));
            }
            producer.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(42)),
                    new ConsumerGroupMetadata(group));
            producer.commitTransaction();
            producer.beginTransaction();
            for (int i = 0; i < ABORTED; i++) {
                producer.send(new ProducerRecord<>(txTopic, "a" + i));
            }
            producer.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(99)),
                    new ConsumerGroupMetadata(group));
            producer.flush();
            producer.abortTransaction();
        }
        List<String> read = readCommitted(txTopic);
        long groupOffset = KAFKA.cluster().admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS).get(new TopicPartition(topic, 0)).offset();
        return new Result(new TreeMap<>(acked), failed.get(), inOrder,
                (int) read.stream().filter(v -> v.startsWith("c")).count(),
                (int) read.stream().filter(v -> v.startsWith("a")).count(), groupOffset);
    }

    @Test
    void theProducersMetadataAgeMetricReadsKmetasAgeAndUserInterceptorsStay() throws Exception {
        KAFKA.cluster().createTopic("age", 1, 1);
        Map<String, Object> p = producerProps(KAFKA.cluster().proxiedBootstrapServers());
        p.put(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, CountingInterceptor.class.getName());
        long sends0 = CountingInterceptor.SENDS.get();
        long acks0 = CountingInterceptor.ACKS.get();
        try (Producer<String, String> producer = KmetaProducer.create(p)) {
            producer.send(new ProducerRecord<>("age", "v")).get(30, TimeUnit.SECONDS);
            assertEquals(1, CountingInterceptor.SENDS.get() - sends0, "the user's interceptor is kept beside kmeta's");
            assertEquals(1, CountingInterceptor.ACKS.get() - acks0);
            Metric metric = producer.metrics().entrySet().stream()
                    .filter(e -> e.getKey().name().equals("metadata-age") && e.getKey().group().equals("producer-metrics"))
                    .map(Map.Entry::getValue).findFirst().orElseThrow();
            double seconds = (double) metric.metricValue();
            long kmetaAgeMs = bridge(producer).metadata().metadataAgeMs();
            report("metadata-age metric %.3f s, kmeta's metadataAgeMs %d ms", seconds, kmetaAgeMs);
            assertTrue(seconds >= 0 && seconds < 60, "the age of kmeta's metadata, not of the epoch: " + seconds);
            assertEquals(kmetaAgeMs / 1000.0, seconds, 1.0);
        }
    }

    @Test
    void anInterruptEndsASendBlockedOnMetadataAtOnce() throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<String, Object> p = producerProps(KAFKA.cluster().proxiedBootstrapServers());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000);
        List<Long> latenciesMs = new ArrayList<>();
        try (Producer<String, String> producer = KmetaProducer.create(p)) {
            for (int round = 0; round < 5; round++) {
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                long[] caught = new long[3]; // ns at the catch, interrupt status kept (1), CPU ns of the thread
                long start = System.nanoTime();
                Thread t = new Thread(() -> {
                    try {
                        producer.send(new ProducerRecord<>("never-created", "v"));
                    } catch (Throwable e) {
                        caught[0] = System.nanoTime();
                        caught[1] = Thread.currentThread().isInterrupted() ? 1 : 0;
                        caught[2] = mx.getCurrentThreadCpuTime();
                        thrown.set(e);
                    }
                }, "it-blocked-send-" + round);
                t.setDaemon(true);
                t.start();
                // Blocked (parked) in the metadata wait for a while, so that a spinning wait would show as CPU time.
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(() ->
                        t.getState() == Thread.State.TIMED_WAITING && TestClients.millisSince(start) >= 200);
                for (java.lang.management.MonitorInfo m : mx.getThreadInfo(new long[] {t.getId()}, true, false)[0]
                        .getLockedMonitors()) {
                    assertTrue(!m.getClassName().startsWith("dev.kmeta.producer"),
                            "the blocked send holds no monitor of the stand-in: " + m);
                }
                long interruptedAt = System.nanoTime();
                t.interrupt();
                t.join(5_000);
                assertTrue(thrown.get() instanceof InterruptException, "send threw " + thrown.get());
                assertEquals(1, caught[1], "the interrupt status is kept");
                long latencyMs = (caught[0] - interruptedAt) / 1_000_000;
                long wallMs = (caught[0] - start) / 1_000_000;
                long cpuMs = caught[2] / 1_000_000;
                latenciesMs.add(latencyMs);
                report("interrupt round %d: InterruptException %d ms after the interrupt; blocked %d ms wall, %d ms CPU",
                        round, latencyMs, wallMs, cpuMs);
                assertTrue(latencyMs < 1_000, "each round bounded: " + latencyMs + " ms");
                assertTrue(cpuMs < Math.max(50, wallMs / 2), "no spin: " + cpuMs + " ms CPU in " + wallMs + " ms");
            }
        }
        List<Long> sorted = new ArrayList<>(latenciesMs);
        sorted.sort(null);
        long median = sorted.get(sorted.size() / 2);
        report("interrupt latency median %d ms over %s", median, latenciesMs);
        assertTrue(median <= 50, "median " + median + " ms");
    }

    @Test
    void closingTwoOfThreeProducersKeepsTheThirdAndTheLastLeavesNoThreadOrSocket() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        await().atMost(Duration.ofSeconds(20)).until(() -> TestClients.kmetaThreads().isEmpty()
                && TestClients.openConnections(cluster) == 0);
        cluster.createTopic("close", 1, 1);
        Producer<String, String> a = KmetaProducer.create(producerProps(cluster.proxiedBootstrapServers()));
        Producer<String, String> b = KmetaProducer.create(producerProps(cluster.proxiedBootstrapServers()));
        Producer<String, String> c = KmetaProducer.create(producerProps(cluster.proxiedBootstrapServers()));
        try {
            for (Producer<String, String> p : List.of(a, b, c)) {
                p.send(new ProducerRecord<>("close", "v")).get(30, TimeUnit.SECONDS);
            }
            assertTrue(Handles.sameInstance(bridge(c).metadata(), bridge(a).metadata()));
            assertEquals(1, TestClients.kmetaThreads().size(), "one kmeta thread: " + TestClients.kmetaThreads());
            a.close();
            b.close();
            assertEquals(1, TestClients.kmetaThreads().size(), "the instance runs for the third producer");
            c.send(new ProducerRecord<>("close", "after")).get(30, TimeUnit.SECONDS);
        } finally {
            c.close();
            a.close();
            b.close();
        }
        assertTrue(bridge(c).isClosed());
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertEquals(List.of(), TestClients.kmetaThreads()));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertEquals(0, TestClients.openConnections(cluster),
                "every socket of the producers and of kmeta is closed"));
    }

    /** Every committed value of the topic (read_committed, from the start to the end offsets). */
    private static List<String> readCommitted(String topic) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.cluster().bootstrapServers());
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
                return consumer.position(tp) >= end;
            });
        }
        assertTrue(values.size() <= COMMITTED + ABORTED);
        return values;
    }
}
