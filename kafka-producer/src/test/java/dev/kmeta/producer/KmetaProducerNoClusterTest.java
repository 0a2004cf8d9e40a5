package dev.kmeta.producer;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.producer.internal.abi.KafkaClientsAbi;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import dev.kmeta.sender.HostResolverHook;
import dev.kmeta.testkit.LogCapture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.kmeta.testkit.TestClients.closedPort;
import static dev.kmeta.testkit.TestClients.kmetaThreads;
import static dev.kmeta.testkit.TestClients.millisSince;
import static dev.kmeta.testkit.TestClients.producerProps;
import static dev.kmeta.testkit.TestClients.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Failures before any broker answers, with no cluster at all: a bootstrap port that refuses connections reaches the
 * application as kmeta's diagnosed timeout within max.block.ms + 1 s; a bootstrap name that does not resolve (through
 * kmeta's DNS hook) fails as it does for a stock producer in the same test (issue 39); an unsupported kafka-clients version and bad kmeta keys fail at creation, and
 * the stand-in chosen is the one for the kafka-clients on the class path (4.4, or 4.0 in the kafka-clients-compat run).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("kafka-clients-compat")
class KmetaProducerNoClusterTest {
    /** A reserved name (RFC 6761): no resolver answers it; kmeta sees it through its DNS hook only. */
    private static final String UNRESOLVABLE = "kafka.does-not-resolve.test";
    private static final String BOOTSTRAP_RESOLVE_TIMEOUT_MS = "bootstrap.resolve.timeout.ms";
    /** kafka-clients 4.4's; by name, as the kafka-clients-compat run compiles against 4.0. */
    private static final String BOOTSTRAP_RESOLUTION = "org.apache.kafka.common.errors.BootstrapResolutionException";
    /** Only a timeout and its diagnosis are checked: a refused or unresolvable bootstrap fails every attempt at once. */
    private static final long MAX_BLOCK_MS = 1_000;

    /** The exception a send's future failed with, and how long it took from send(). */
    private static Throwable failureOf(Producer<String, String> producer, String topic) throws Exception {
        long start = System.nanoTime();
        Future<?> f = producer.send(new ProducerRecord<>(topic, "v"));
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(MAX_BLOCK_MS + 5_000,
                TimeUnit.MILLISECONDS));
        long tookMs = millisSince(start);
        report("send to %s failed after %d ms (max.block.ms %d): %s", topic, tookMs, MAX_BLOCK_MS, e.getCause());
        assertTrue(tookMs <= MAX_BLOCK_MS + 1_000, "within max.block.ms + 1 s: " + tookMs + " ms");
        return e.getCause();
    }

    @Test
    void aBootstrapThatRefusesConnectionsIsNamed() throws Exception {
        int port = closedPort();
        Properties p = new Properties(); // the Properties route, as a user's client.properties arrives
        p.putAll(producerProps("127.0.0.1:" + port));
        p.setProperty(ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf(MAX_BLOCK_MS));
        try (Producer<String, String> producer = KmetaProducer.create(p)) {
            Throwable e = failureOf(producer, "orders");
            KafkaMetadataTimeoutException kmeta = assertInstanceOf(KafkaMetadataTimeoutException.class, e);
            assertEquals(Diagnosis.Cause.BOOTSTRAP_UNREACHABLE, kmeta.diagnosis().cause(), e.getMessage());
            assertTrue(e.getMessage().contains("BOOTSTRAP_UNREACHABLE") && e.getMessage().contains("127.0.0.1:" + port),
                    e.getMessage());
        }
    }

    /** Whether the kafka-clients of this run is 4.4 (the default run) rather than 4.0-4.3 (kafka-clients-compat). */
    private static boolean kafkaClients44() {
        return System.getProperty("kmeta.test.kafkaClientsVersion", "4.4").startsWith("4.4");
    }

    /** A DNS hook that knows no name, counting its lookups: kmeta's side of the side-by-side tests. */
    private static HostResolverHook noName(AtomicInteger lookups) {
        return host -> {
            lookups.incrementAndGet();
            throw new UnknownHostException(host + ": no such name (test hook)");
        };
    }

    /**
     * Issue 39: with {@code bootstrap.resolve.timeout.ms} unset or 0 - Kafka's default, and on 4.0-4.3, where the key
     * does not exist - a stock KafkaProducer fails its constructor when no bootstrap name resolves; so does
     * {@code create}, with the same types and stock's message, plus kmeta's BOOTSTRAP_DNS diagnosis. Side by side:
     * stock resolves the reserved {@code .test} name with the system resolver, kmeta through its DNS hook.
     */
    @Test
    void anUnresolvableBootstrapFailsCreateAsStockDoesWithKmetasDiagnosis() {
        for (Object bound : Arrays.asList(null, 0)) {
            Map<String, Object> p = producerProps(UNRESOLVABLE + ":9092");
            p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS);
            if (bound != null && kafkaClients44()) {
                p.put(BOOTSTRAP_RESOLVE_TIMEOUT_MS, bound);
            }
            long start = System.nanoTime();
            KafkaException stock = assertThrows(KafkaException.class,
                    () -> new KafkaProducer<String, String>(p).close());
            long stockMs = millisSince(start);
            AtomicInteger lookups = new AtomicInteger();
            start = System.nanoTime();
            KafkaException kmeta = assertThrows(KafkaException.class,
                    () -> KmetaProducer.builder(p).hostResolver(noName(lookups)).build().close());
            long kmetaMs = millisSince(start);
            report("bootstrap %s=%s, no name resolves: stock fails its constructor in %d ms (%s), kmeta's create in "
                    + "%d ms (%s)", BOOTSTRAP_RESOLVE_TIMEOUT_MS, bound, stockMs, stock.getCause(), kmetaMs,
                    kmeta.getCause());
            assertEquals(stock.getClass(), kmeta.getClass());
            assertEquals(stock.getMessage(), kmeta.getMessage(), "Failed to construct kafka producer");
            ConfigException stockCause = assertInstanceOf(ConfigException.class, stock.getCause(), String.valueOf(stock));
            ConfigException cause = assertInstanceOf(ConfigException.class, kmeta.getCause(), String.valueOf(kmeta));
            assertTrue(cause.getMessage().startsWith(stockCause.getMessage()), cause.getMessage());
            assertTrue(cause.getMessage().contains("BOOTSTRAP_DNS") && cause.getMessage().contains(UNRESOLVABLE),
                    cause.getMessage());
            assertEquals(Diagnosis.Cause.BOOTSTRAP_DNS, Diagnosis.from(kmeta).orElseThrow().cause());
            assertTrue(lookups.get() > 0, "kmeta resolved through the hook");
            assertTrue(kmetaMs <= stockMs + 1_000, "no slower than stock to tell: " + kmetaMs + " ms");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> kmetaThreads().isEmpty());
    }

    /**
     * Issue 39, kafka-clients 4.4: with a positive {@code bootstrap.resolve.timeout.ms} a stock producer is made and
     * its send fails with a {@code BootstrapResolutionException} once the bound passed with no name resolving; so does
     * a send on kmeta, in about the same time, carrying kmeta's BOOTSTRAP_DNS diagnosis; a later send fails at once.
     */
    @Test
    void aPositiveResolveBoundWaitsItThenFailsAsStockWithKmetasDiagnosis() throws Exception {
        assumeTrue(kafkaClients44(), "4.0-4.3 have no bootstrap.resolve.timeout.ms: the test above");
        long boundMs = 1_000;
        Map<String, Object> p = producerProps(UNRESOLVABLE + ":9092");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
        p.put(BOOTSTRAP_RESOLVE_TIMEOUT_MS, boundMs);
        AtomicInteger lookups = new AtomicInteger();
        long start = System.nanoTime(); // both bounds count from the producer's construction
        Throwable stockError;
        try (Producer<String, String> stock = new KafkaProducer<>(p)) {
            stockError = sendError(stock);
        }
        long stockMs = millisSince(start);
        start = System.nanoTime();
        try (LogCapture log = LogCapture.at("warn", "dev.kmeta");
             Producer<String, String> kmeta = KmetaProducer.builder(p).hostResolver(noName(lookups)).build()) {
            Throwable kmetaError = sendError(kmeta);
            await().atMost(Duration.ofSeconds(10)).until(() -> log.text().contains(
                    "resolved within bootstrap.resolve.timeout.ms=" + boundMs)); // kmeta's ERROR, expected here
            long kmetaMs = millisSince(start);
            report("bootstrap.resolve.timeout.ms=%d, no name resolves: stock's send fails %d ms after construction "
                    + "(%s), kmeta's after %d ms (%s)", boundMs, stockMs, stockError, kmetaMs, kmetaError);
            assertEquals(BOOTSTRAP_RESOLUTION, stockError.getClass().getName(), String.valueOf(stockError));
            assertEquals(BOOTSTRAP_RESOLUTION, kmetaError.getClass().getName(), String.valueOf(kmetaError));
            assertTrue(kmetaError.getMessage().startsWith("Failed to resolve bootstrap servers after " + boundMs + "ms")
                    && kmetaError.getMessage().contains("BOOTSTRAP_DNS"), kmetaError.getMessage());
            assertEquals(Diagnosis.Cause.BOOTSTRAP_DNS, Diagnosis.from(kmetaError).orElseThrow().cause());
            assertTrue(kmetaMs >= boundMs - 50 && kmetaMs <= stockMs + 500, "waits the bound, no longer than stock: "
                    + kmetaMs + " ms");
            assertTrue(lookups.get() > 0, "kmeta resolved through the hook");

            start = System.nanoTime();
            assertEquals(BOOTSTRAP_RESOLUTION, sendError(kmeta).getClass().getName());
            assertTrue(millisSince(start) < boundMs, "the next send fails at once, as stock's does");
        }
    }

    /** What a send failed with: thrown by send() (stock's BootstrapResolutionException is) or by its future. */
    private static Throwable sendError(Producer<String, String> producer) throws Exception {
        Future<?> f;
        try {
            f = producer.send(new ProducerRecord<>("orders", "v"));
        } catch (KafkaException e) {
            return e;
        }
        return assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS)).getCause();
    }

    @Test
    void aKafkaClientsTheSenderRefusesIsUnsupportedNamingTheVersionAndTheRange() {
        KafkaException e = assertThrows(KafkaException.class, () -> KafkaClientsAbi.select("3.9.2",
                "kmeta needs kafka-clients 4.0 or newer", ProducerMetadata.class));
        assertTrue(e.getMessage().contains("found kafka-clients 3.9.2")
                && e.getMessage().contains(KmetaProducer.SUPPORTED_KAFKA_CLIENTS)
                && e.getMessage().contains("kmeta needs kafka-clients 4.0 or newer"), e.getMessage());
    }

    /**
     * The stand-in is chosen by what kafka-clients' classes offer, not by the version number: a newer (or unknown)
     * number with this run's shapes gets this run's stand-in.
     */
    @Test
    void theStandInIsChosenByShapeWhateverTheVersionNumberSays() throws Exception {
        String version = System.getProperty("kmeta.test.kafkaClientsVersion");
        KafkaClientsAbi current = KafkaClientsAbi.current();
        assertEquals(version, current.version(), "the build's kafka-clients");
        assertEquals("dev.kmeta.producer.internal.ProducerMetadata" + (kafkaClients44() ? "44" : "40"),
                current.standInClass());
        for (String claimed : Arrays.asList("4.5.0", "5.0.0", "4.3.1", "4.4.0", null)) {
            assertEquals(current.standInClass(), KafkaClientsAbi.select(claimed, null, ProducerMetadata.class)
                    .standInClass(), "claimed " + claimed);
        }
        assertNull(KafkaClientsAbi.unsupportedReason());
        KmetaProducer.create(producerProps("127.0.0.1:" + closedPort())).close();
        assertEquals(0, KmetaProducer.fallbacks(), "a supported kafka-clients makes no stock producer");
        javax.management.ObjectName route = new javax.management.ObjectName(
                "dev.kmeta:type=kafka-producer-route,kafka-clients=\"" + version + "\"");
        javax.management.MBeanServer jmx = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        assertEquals(current.standInClass(), jmx.getAttribute(route, "StandIn"));
        assertEquals(0L, jmx.getAttribute(route, "Fallbacks"));
        assertEquals("", jmx.getAttribute(route, "UnsupportedReason"));
    }

    /** A ProducerMetadata with neither ABI's awaitUpdate: no stand-in fits. */
    static final class NoAwaitUpdate {
        public NoAwaitUpdate(long a, long b, long c, long d, org.apache.kafka.common.utils.internals.LogContext log,
                             org.apache.kafka.common.internals.ClusterResourceListeners listeners) {
        }

        public java.util.OptionalInt add(java.util.Collection<String> topics, long nowMs) {
            return java.util.OptionalInt.empty();
        }
    }

    /** The 4.4 shape (constructor, awaitUpdate, add) but nothing else the stand-in overrides (fetch, ...). */
    static final class ShapeButNoFetch {
        public ShapeButNoFetch(long a, long b, long c, long d, org.apache.kafka.common.utils.internals.LogContext log,
                               org.apache.kafka.common.internals.ClusterResourceListeners listeners) {
        }

        public void awaitUpdate(int lastVersion, org.apache.kafka.common.utils.Timer timer) {
        }

        public java.util.OptionalInt add(java.util.Collection<String> topics, long nowMs) {
            return java.util.OptionalInt.empty();
        }
    }

    /**
     * A kafka-clients whose ProducerMetadata lacks a method a stand-in needs is unsupported at selection (so
     * {@code create} makes a stock producer), never a {@code NoSuchMethodError} in a send.
     */
    @Test
    void aProducerMetadataThatLacksAMethodTheStandInNeedsIsUnsupported() {
        assumeTrue(kafkaClients44(), "the look-alikes are written against 4.4's classes");
        KafkaException none = assertThrows(KafkaException.class,
                () -> KafkaClientsAbi.select("4.5.0", null, NoAwaitUpdate.class));
        assertTrue(none.getMessage().contains("found kafka-clients 4.5.0")
                && none.getMessage().contains("ProducerMetadata.awaitUpdate(ILorg/apache/kafka/common/utils/Timer;)V")
                && none.getMessage().contains("ProducerMetadata.awaitUpdate(IJ)V"), none.getMessage());
        KafkaException noFetch = assertThrows(KafkaException.class,
                () -> KafkaClientsAbi.select("4.5.0", null, ShapeButNoFetch.class));
        assertTrue(noFetch.getMessage().contains("ProducerMetadata44: java.lang.NoSuchMethodException"),
                noFetch.getMessage());
    }

    @Test
    void aBadUnsupportedVersionValueIsAConfigExceptionNamingTheKey() {
        Map<String, Object> p = producerProps("127.0.0.1:" + closedPort());
        p.put(KmetaProducer.UNSUPPORTED_VERSION, "ignore");
        ConfigException e = assertThrows(ConfigException.class, () -> KmetaProducer.create(p));
        assertTrue(e.getMessage().contains(KmetaProducer.UNSUPPORTED_VERSION), e.getMessage());
    }

    @Test
    void badKmetaKeysFailAtCreationAndNothingIsLeftRunning() {
        Map<String, Object> p = producerProps("127.0.0.1:" + closedPort());
        p.put(KmetaProducer.GIVE_UP_EARLY_MS, "5000");
        ConfigException e = assertThrows(ConfigException.class, () -> KmetaProducer.create(p));
        assertTrue(e.getMessage().contains(KmetaProducer.GIVE_UP_EARLY_MS), e.getMessage());

        Map<String, Object> q = producerProps("127.0.0.1:" + closedPort());
        q.put("kmeta.metadata.jitter", "2");
        ConfigException kmeta = assertThrows(ConfigException.class, () -> KmetaProducer.create(q));
        assertTrue(kmeta.getMessage().contains("kmeta.metadata.jitter"), kmeta.getMessage());

        Map<String, Object> r = producerProps("127.0.0.1:" + closedPort());
        r.put(ProducerConfig.ACKS_CONFIG, "sometimes");
        assertThrows(ConfigException.class, () -> KmetaProducer.create(r), "Kafka's own validation");
        await().atMost(Duration.ofSeconds(10)).until(() -> kmetaThreads().isEmpty());
        assertEquals(List.of(), kmetaThreads());
    }
}
