package dev.kmeta.streams;

import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.kmeta.testkit.TestClients.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 41: under exactly-once v2, a stream thread whose producer is fenced - here by a zombie, a producer with the
 * thread's {@code transactional.id} that calls {@code initTransactions()} - gets a new producer from the supplier
 * ({@code reInitializeProducer}). On {@link KmetaClientSupplier} that producer joins the shared instance, which its
 * sibling keeps warm for the topics the application writes: its first send must be answered from what the instance
 * holds, with no Metadata request (a stock replacement, or one on a private instance, asks 2-4:
 * bench/results/README.md, "a fenced producer's replacement"). Counted on the instance's own request counter from the
 * replacement's construction to the return of its first {@code send()} (which returns once the record's partition is
 * known).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FencedProducerReplacementTest {
    private static final int THREADS = 2;
    private static final int PARTITIONS = 4;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(1));

    @TempDir
    Path stateDir;

    /** One producer the supplier built: its transactional.id, its instance, the instance's requests sent around its first send. */
    static final class Built {
        final String transactionalId;
        final KafkaMetadata instance;
        final long requestsAtConstruction;
        volatile long requestsAfterFirstSend = -1;

        Built(String transactionalId, KafkaMetadata instance) {
            this.transactionalId = transactionalId;
            this.instance = instance;
            this.requestsAtConstruction = instance.stats().requestsSent();
        }

        boolean sent() {
            return requestsAfterFirstSend >= 0;
        }
    }

    /** {@link KmetaClientSupplier}, recording each producer it builds and the return of that producer's first send. */
    static final class RecordingSupplier implements KafkaClientSupplier {
        final KmetaClientSupplier kmeta = new KmetaClientSupplier();
        final List<Built> built = new CopyOnWriteArrayList<>();

        @Override
        public Admin getAdmin(Map<String, Object> config) {
            return kmeta.getAdmin(config);
        }

        @Override
        @SuppressWarnings("unchecked")
        public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
            Producer<byte[], byte[]> real = kmeta.getProducer(config);
            Built b = new Built(String.valueOf(config.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG)),
                    KmetaProducer.metadataOf(real).orElseThrow(() -> new AssertionError("not on kmeta: " + real)));
            built.add(b);
            return (Producer<byte[], byte[]>) Proxy.newProxyInstance(Producer.class.getClassLoader(),
                    new Class<?>[] {Producer.class}, (proxy, method, args) -> {
                        Object result;
                        try {
                            result = method.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                        if (method.getName().equals("send") && !b.sent()) {
                            b.requestsAfterFirstSend = b.instance.stats().requestsSent();
                        }
                        return result;
                    });
        }

        @Override
        public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
            return kmeta.getConsumer(config);
        }

        @Override
        public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
            return kmeta.getRestoreConsumer(config);
        }

        @Override
        public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
            return kmeta.getGlobalConsumer(config);
        }
    }

    @Test
    void aFencedThreadsNewProducerSendsWithoutAMetadataRequest() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        String bootstrap = cluster.bootstrapServers();
        cluster.createTopic("fence-in", PARTITIONS, 1);
        cluster.createTopic("fence-out", PARTITIONS, 1);
        StreamsBuilder builder = new StreamsBuilder();
        // a repartition and a store (changelog): the topics a thread's producer writes besides the output
        builder.<String, String>stream("fence-in")
                .groupBy((k, v) -> v, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as(Stores.inMemoryKeyValueStore("fence-counts")))
                .toStream().mapValues(String::valueOf).to("fence-out");
        Properties p = StreamsIt.streamsProps(bootstrap, "fence-app", StreamsConfig.EXACTLY_ONCE_V2, THREADS,
                stateDir);
        RecordingSupplier supplier = new RecordingSupplier();
        ScheduledExecutorService feeding = Executors.newSingleThreadScheduledExecutor();
        AtomicInteger fed = new AtomicInteger();
        try (KafkaProducer<String, String> feed = StreamsIt.feeder(bootstrap);
             KafkaStreams streams = new KafkaStreams(builder.build(), p, supplier)) {
            streams.start();
            feeding.scheduleAtFixedRate(() -> {
                for (int i = 0; i < 20; i++) {
                    int n = fed.getAndIncrement();
                    feed.send(new ProducerRecord<>("fence-in", "k" + (n % 40), "v" + (n % 7)));
                }
            }, 0, 50, TimeUnit.MILLISECONDS);
            await().atMost(Duration.ofSeconds(60)).until(() -> streams.state() == KafkaStreams.State.RUNNING
                    && supplier.built.stream().filter(Built::sent).count() >= THREADS);

            Built victim = supplier.built.stream().filter(Built::sent).findFirst().orElseThrow();
            int before = supplier.built.size();
            try (KafkaProducer<String, String> zombie = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG, victim.transactionalId),
                    new StringSerializer(), new StringSerializer())) {
                zombie.initTransactions(); // bumps the epoch: the thread's producer is fenced
            }
            await().atMost(Duration.ofSeconds(90)).until(() -> supplier.built.subList(before, supplier.built.size())
                    .stream().anyMatch(b -> b.transactionalId.equals(victim.transactionalId) && b.sent()));
            Built replacement = supplier.built.subList(before, supplier.built.size()).stream()
                    .filter(b -> b.transactionalId.equals(victim.transactionalId) && b.sent()).findFirst()
                    .orElseThrow();
            report("fenced %s; its replacement's instance sent %d Metadata request(s) from its construction to the "
                            + "return of its first send; producers built: %d", victim.transactionalId,
                    replacement.requestsAfterFirstSend - replacement.requestsAtConstruction, supplier.built.size());
            assertTrue(replacement.requestsAtConstruction > 0, "the instance had answered before: it is the shared "
                    + "one the first producers started, not a new one");
            assertEquals(replacement.requestsAtConstruction, replacement.requestsAfterFirstSend,
                    "the replacement's first send was answered from the shared instance: no Metadata request");
        } finally {
            feeding.shutdownNow();
        }
    }
}
