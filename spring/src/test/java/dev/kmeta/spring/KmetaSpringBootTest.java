package dev.kmeta.spring;

import dev.kmeta.sender.internal.Handles;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import dev.kmeta.testkit.TestClients;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.support.SendResult;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Boot's producer factory on kmeta, against a real broker behind a proxy that counts requests: sends acked through
 * KafkaTemplate, one kmeta instance for N factories, transactions as Spring's own factory does them, a missing topic
 * diagnosed, kmeta off (property, user's own factory), meters and health, and nothing left after the context closes.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KmetaSpringBootTest {
    private static final String TOPIC = "orders";
    private static final int FACTORIES = 4;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(1).withProxies());

    @BeforeAll
    static void topics() throws IOException {
        // the build runs this class on kafka-clients 4.4 and on the one Spring Boot's BOM manages
        Properties kafkaClients = new Properties();
        try (InputStream in = Producer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            kafkaClients.load(in);
        }
        String version = kafkaClients.getProperty("version");
        assertEquals(System.getProperty("kmeta.test.kafkaClientsVersion", version), version, "kafka-clients");
        KAFKA.cluster().createTopic(TOPIC, 1, 1);
    }

    private static String bootstrap() {
        return KAFKA.cluster().proxiedBootstrapServers();
    }

    @Test
    void bootsTemplateSendsThroughKmetaAndFactoriesShareOneInstance() {
        List<Long> counts = new ArrayList<>();
        SpringIt.boot().withPropertyValues("spring.kafka.bootstrap-servers=" + bootstrap()).run(context -> {
            ProducerFactory<?, ?> bootFactory = context.getBean(ProducerFactory.class);
            assertInstanceOf(KmetaProducerFactory.class, bootFactory);
            @SuppressWarnings("unchecked")
            KmetaProducerFactory<Object, Object> factory = (KmetaProducerFactory<Object, Object>) bootFactory;
            @SuppressWarnings("unchecked")
            KafkaTemplate<Object, Object> template = context.getBean(KafkaTemplate.class);
            KAFKA.cluster().proxy(0).resetCounters();

            SendResult<Object, Object> acked = template.send(TOPIC, "k", "v").get(30, TimeUnit.SECONDS);
            assertTrue(acked.getRecordMetadata().offset() >= 0);
            SpringIt.RawProducers raw = context.getBean(SpringIt.RawProducers.class);
            assertEquals(1, raw.made.size(), "one raw producer, through the post-processors");
            KafkaMetadata instance = KmetaProducer.metadataOf(raw.made.get(0)).orElseThrow(
                    () -> new AssertionError("the raw producer is not kmeta-backed: " + raw.made.get(0)));

            // N-1 more templates: on copies of Boot's factory, and on factories made by hand, all kmeta-backed
            List<KafkaTemplate<Object, Object>> more = new ArrayList<>();
            List<KmetaProducerFactory<Object, Object>> own = new ArrayList<>();
            for (int i = 1; i < FACTORIES; i++) {
                if (i % 2 == 1) {
                    more.add(new KafkaTemplate<>(factory, Map.of(ProducerConfig.LINGER_MS_CONFIG, 0)));
                } else {
                    KmetaProducerFactory<Object, Object> f = new KmetaProducerFactory<>(
                            new HashMap<>(factory.getConfigurationProperties()));
                    own.add(f);
                    more.add(new KafkaTemplate<>(f));
                }
            }
            for (KafkaTemplate<Object, Object> t : more) {
                t.send(TOPIC, "k", "v").get(30, TimeUnit.SECONDS);
            }
            List<KafkaMetadata> handles = new ArrayList<>(factory.kmetaInstances());
            own.forEach(f -> handles.addAll(f.kmetaInstances()));
            assertEquals(1 + own.size(), handles.size(), "Boot's factory (with its copies) and the own ones");
            handles.forEach(h -> assertTrue(Handles.sameInstance(h, instance), "one kmeta instance for " + FACTORIES
                    + " factories, got another: " + h));
            counts.add(TestClients.metadataRequests(KAFKA.cluster()));

            // the factory's reset(): the next send makes a new raw producer, again through kmeta
            int made = raw.made.size(); // the copies keep the post-processors: their raw producers are here too
            factory.reset();
            template.send(TOPIC, "k", "after reset").get(30, TimeUnit.SECONDS);
            assertEquals(made + 1, raw.made.size());
            assertTrue(KmetaProducer.metadataOf(raw.made.get(made)).isPresent());
            more.forEach(KafkaTemplate::destroy); // a template on a copy destroys the copy
            own.forEach(DefaultKafkaProducerFactory::destroy);
        });

        // the same N sends on Spring's own factories
        KAFKA.cluster().proxy(0).resetCounters();
        Map<String, Object> configs = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        List<DefaultKafkaProducerFactory<String, String>> plain = new ArrayList<>();
        try {
            for (int i = 0; i < FACTORIES; i++) {
                DefaultKafkaProducerFactory<String, String> f = new DefaultKafkaProducerFactory<>(configs);
                plain.add(f);
                new KafkaTemplate<>(f).send(TOPIC, "k", "v").get(30, TimeUnit.SECONDS);
            }
            counts.add(TestClients.metadataRequests(KAFKA.cluster()));
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            plain.forEach(DefaultKafkaProducerFactory::destroy);
        }
        TestClients.report("%s", "Metadata requests for " + FACTORIES + " factories' first sends: kmeta-backed "
                + counts.get(0) + ", Spring's own " + counts.get(1));
        assertTrue(counts.get(0) < counts.get(1), "kmeta-backed factories made " + counts.get(0)
                + " Metadata requests, Spring's own " + counts.get(1));
    }

    /**
     * The auto-configuration makes its factory as Boot's KafkaAutoConfiguration makes its own (a later Boot that
     * changes that recipe shows here): the same configs, transaction-id prefix, customizers (listeners,
     * post-processors).
     */
    @Test
    void bootsFactoryIsMadeFromWhatBootsOwnIsMadeFrom() {
        List<List<Object>> made = new ArrayList<>();
        for (boolean kmeta : new boolean[] {true, false}) {
            SpringIt.boot()
                    .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                            CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                            org.springframework.boot.kafka.autoconfigure.metrics.KafkaMetricsAutoConfiguration.class))
                    .withPropertyValues("kmeta.enabled=" + kmeta, "spring.kafka.bootstrap-servers=" + bootstrap(),
                            "spring.kafka.client-id=recipe", "spring.kafka.producer.acks=1",
                            "spring.kafka.producer.transaction-id-prefix=recipe-tx-",
                            "spring.kafka.security.protocol=PLAINTEXT", "spring.kafka.properties[linger.ms]=7",
                            "spring.kafka.producer.properties[kmeta.metadata.prefetch.topics]=" + TOPIC)
                    .run(context -> {
                        DefaultKafkaProducerFactory<?, ?> f = context.getBean(DefaultKafkaProducerFactory.class);
                        assertEquals(kmeta, f instanceof KmetaProducerFactory);
                        made.add(List.of(f.getConfigurationProperties(), String.valueOf(f.getTransactionIdPrefix()),
                                f.getListeners().stream().map(l -> l.getClass().getName()).toList(),
                                f.getPostProcessors().size()));
                    });
        }
        assertEquals(made.get(1), made.get(0), "kmeta's factory (first) and Boot's own (second)");
    }

    /** Without Micrometer and Actuator on the class path: kmeta's factory all the same, no meters, no health. */
    /**
     * Issue 39: Boot's property {@code kmeta.producer.leaderless-partition} reaches the producers as
     * {@code kmeta.producer.leaderless.partition}; {@code spring.kafka.properties[...]} given as well wins.
     */
    @Test
    void theLeaderlessPartitionPropertyReachesTheProducersAndTheKafkaPropertyWins() {
        SpringIt.boot().withPropertyValues("spring.kafka.bootstrap-servers=" + bootstrap(),
                "kmeta.producer.leaderless-partition=fail").run(context -> assertEquals("fail",
                ((KmetaProducerFactory<?, ?>) context.getBean(ProducerFactory.class)).getConfigurationProperties()
                        .get(KmetaProducer.LEADERLESS_PARTITION)));
        SpringIt.boot().withPropertyValues("spring.kafka.bootstrap-servers=" + bootstrap(),
                "kmeta.producer.leaderless-partition=fail",
                "spring.kafka.properties[" + KmetaProducer.LEADERLESS_PARTITION + "]=hold").run(context -> assertEquals(
                "hold", ((KmetaProducerFactory<?, ?>) context.getBean(ProducerFactory.class))
                        .getConfigurationProperties().get(KmetaProducer.LEADERLESS_PARTITION)));
    }

    @Test
    void withoutMicrometerOrActuatorTheFactoryIsStillKmetas() {
        SpringIt.boot()
                .withClassLoader(new FilteredClassLoader("io.micrometer.core", "org.springframework.boot.health"))
                .withPropertyValues("spring.kafka.bootstrap-servers=" + bootstrap()).run(context -> {
                    assertInstanceOf(KmetaProducerFactory.class, context.getBean(ProducerFactory.class));
                    assertFalse(context.containsBean("kmetaHealthIndicator"));
                    assertTrue(context.getBeansOfType(DefaultKafkaProducerFactoryCustomizer.class).keySet().stream()
                            .noneMatch(name -> name.startsWith("kmeta")), "kmeta's meter customizer without Micrometer");
                });
    }

    @Test
    void transactionsCommitAndAbortAsWithSpringsOwnFactory() {
        Map<Boolean, List<String>> results = new HashMap<>();
        for (boolean kmeta : new boolean[] {true, false}) {
            String topic = "tx-" + (kmeta ? "kmeta" : "plain");
            KAFKA.cluster().createTopic(topic, 1, 1);
            SpringIt.boot().withPropertyValues("spring.kafka.bootstrap-servers=" + bootstrap(),
                    "spring.kafka.producer.transaction-id-prefix=" + topic + "-",
                    "kmeta.enabled=" + kmeta).run(context -> {
                assertEquals(kmeta, context.getBean(ProducerFactory.class) instanceof KmetaProducerFactory);
                @SuppressWarnings("unchecked")
                KafkaTemplate<String, String> template = context.getBean(KafkaTemplate.class);
                template.executeInTransaction(t -> t.send(topic, "committed-1"));
                assertThrows(IllegalStateException.class, () -> template.executeInTransaction(t -> {
                    t.send(topic, "aborted");
                    t.flush();
                    throw new IllegalStateException("roll back");
                }));
                template.executeInTransaction(t -> t.send(topic, "committed-2"));
                SpringIt.RawProducers raw = context.getBean(SpringIt.RawProducers.class);
                assertEquals(1, raw.made.size(), "the cached transactional producer serves all three transactions");
                assertEquals(kmeta, KmetaProducer.metadataOf(raw.made.get(0)).isPresent());
            });
            results.put(kmeta, SpringIt.committedValues(bootstrap(), topic));
        }
        assertEquals(List.of("committed-1", "committed-2"), results.get(false));
        assertEquals(results.get(false), results.get(true), "kmeta-backed transactions as Spring's own");
    }

    @Test
    void aMissingTopicFailsWithKmetasDiagnosisInTime() {
        long maxBlockMs = 3_000;
        SpringIt.boot().withPropertyValues("spring.kafka.bootstrap-servers=" + bootstrap(),
                "spring.kafka.producer.properties[max.block.ms]=" + maxBlockMs).run(context -> {
            @SuppressWarnings("unchecked")
            KafkaTemplate<String, String> template = context.getBean(KafkaTemplate.class);
            template.send(TOPIC, "warm").get(30, TimeUnit.SECONDS); // the producer exists, the cluster is known
            long start = System.nanoTime();
            // Spring throws KafkaException("Send failed") from send() when the producer's future failed at once
            Exception e = assertThrows(Exception.class,
                    () -> template.send("no-such-topic", "v").get(maxBlockMs + 10_000, TimeUnit.MILLISECONDS));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            Diagnosis d = Diagnosis.from(e).orElseThrow(() -> new AssertionError("no diagnosis in " + e, e));
            assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, d.cause(), d.message());
            assertTrue(tookMs <= maxBlockMs + 1_000, "failed after " + tookMs + " ms");
            // Spring's producer listener got it too, with the diagnosis (Boot's logs it; the tests' records it)
            List<Exception> failures = context.getBean(SpringIt.SendFailures.class).seen;
            assertEquals(1, failures.size(), failures.toString());
            assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, Diagnosis.from(failures.get(0)).orElseThrow().cause());
        });
    }

    @Test
    void offByPropertyOrByAnOwnProducerFactorySpringsStockFactoryRuns() {
        String off = SpringIt.clientId("off");
        SpringIt.boot().withPropertyValues("spring.kafka.bootstrap-servers=" + bootstrap(),
                "spring.kafka.client-id=" + off, "kmeta.enabled=false").run(context -> {
            assertEquals(DefaultKafkaProducerFactory.class, context.getBean(ProducerFactory.class).getClass());
            sendAndCheckStock(context.getBean(KafkaTemplate.class), context.getBean(SpringIt.RawProducers.class), off);
        });
        String own = SpringIt.clientId("own");
        SpringIt.boot().withPropertyValues("spring.kafka.bootstrap-servers=" + bootstrap(),
                "spring.kafka.client-id=" + own).withUserConfiguration(OwnFactory.class).run(context -> {
            ProducerFactory<?, ?> factory = context.getBean(ProducerFactory.class);
            assertSame(context.getBean("myProducerFactory"), factory);
            assertEquals(DefaultKafkaProducerFactory.class, factory.getClass());
            sendAndCheckStock(context.getBean(KafkaTemplate.class), null, own);
        });
    }

    private static void sendAndCheckStock(KafkaTemplate<?, ?> template, SpringIt.RawProducers raw, String clientId)
            throws Exception {
        @SuppressWarnings("unchecked")
        KafkaTemplate<Object, Object> t = (KafkaTemplate<Object, Object>) template;
        t.send(TOPIC, "stock").get(30, TimeUnit.SECONDS);
        if (raw != null) {
            assertEquals(1, raw.made.size());
            assertFalse(KmetaProducer.metadataOf(raw.made.get(0)).isPresent(), "a kmeta-backed producer");
        }
        assertEquals(List.of(), SpringIt.kmetaThreads(clientId));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnFactory {
        @Bean
        ProducerFactory<Object, Object> myProducerFactory() {
            return new DefaultKafkaProducerFactory<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                    ProducerConfig.CLIENT_ID_CONFIG, SpringIt.clientId("own-bean"),
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
        }
    }

    @Test
    void metersInBootsRegistryAndHealthDownUntilTheBootstrapAnswers() throws Exception {
        String clientId = SpringIt.clientId("health");
        try (FaultProxy bootstrapProxy = FaultProxy.to(KAFKA.cluster().brokerAddress(0)).refuse()) {
            SpringIt.boot()
                    .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                            CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                            HealthContributorAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class))
                    .withPropertyValues("spring.kafka.bootstrap-servers=" + bootstrapProxy.address(),
                            "spring.kafka.client-id=" + clientId,
                            "spring.kafka.producer.properties[reconnect.backoff.ms]=50",
                            "spring.kafka.producer.properties[reconnect.backoff.max.ms]=200")
                    .run(context -> {
                        // Actuator's registry has it as "kmeta"
                        HealthIndicator health = assertInstanceOf(HealthIndicator.class,
                                context.getBean(HealthContributorRegistry.class).getContributor("kmeta"));
                        assertEquals(Status.UNKNOWN, health.health().getStatus(), "no producer yet");
                        Producer<?, ?> producer = context.getBean(ProducerFactory.class).createProducer();
                        String id = clientId + "-1"; // Spring numbers its producers' client ids
                        AtomicReference<Health> last = new AtomicReference<>();
                        await().atMost(Duration.ofSeconds(30)).until(() -> {
                            last.set(health.health());
                            return last.get().getStatus().equals(Status.DOWN)
                                    && String.valueOf(instanceDetails(last.get(), id).get("seen"))
                                    .startsWith("no bootstrap address answered");
                        });
                        assertEquals("BOOTSTRAP_UNREACHABLE", instanceDetails(last.get(), id).get("cause"));

                        MeterRegistry registry = context.getBean(MeterRegistry.class);
                        assertNotNull(registry.find("kmeta.metadata.requests").tag("client.id", id)
                                .functionCounter(), "kmeta's meters are not in Boot's registry: "
                                + registry.getMeters().size() + " meters");

                        bootstrapProxy.pass();
                        await().atMost(Duration.ofSeconds(30)).until(() -> {
                            last.set(health.health());
                            return last.get().getStatus().equals(Status.UP);
                        });
                        assertEquals(KAFKA.cluster().clusterId(), instanceDetails(last.get(), id).get("clusterId"));
                        assertTrue(registry.find("kmeta.metadata.requests").tag("client.id", id)
                                .functionCounter().count() >= 1);
                        producer.close();
                    });
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> instanceDetails(Health health, String clientId) {
        Object d = health.getDetails().get(clientId);
        return d instanceof Map ? (Map<String, Object>) d : Map.of();
    }

    @Test
    void closingTheContextLeavesNoKmetaThreadAndNoSocket() {
        String clientId = SpringIt.clientId("close");
        SpringIt.boot().withPropertyValues("spring.kafka.bootstrap-servers=" + bootstrap(),
                "spring.kafka.client-id=" + clientId,
                "spring.kafka.producer.transaction-id-prefix=" + clientId + "-tx-").run(context -> {
            @SuppressWarnings("unchecked")
            KafkaTemplate<String, String> template = context.getBean(KafkaTemplate.class);
            template.executeInTransaction(t -> t.send(TOPIC, "in a transaction"));
            @SuppressWarnings("unchecked")
            ProducerFactory<Object, Object> factory = context.getBean(ProducerFactory.class);
            factory.createNonTransactionalProducer().send(new ProducerRecord<>(TOPIC, "outside")).get(30,
                    TimeUnit.SECONDS);
            assertFalse(SpringIt.kmetaThreads(clientId).isEmpty(), "no kmeta thread while the context runs");
            assertTrue(KAFKA.cluster().proxy(0).openConnections() > 0);
        });
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertEquals(List.of(), SpringIt.kmetaThreads(clientId));
            assertEquals(0, KAFKA.cluster().proxy(0).openConnections(), "connections left open");
        });
    }

    /**
     * The factory on its own: the raw producer of each path (shared, per thread, transactional) is made by kmeta,
     * under the application context's class loader, through the post-processors in order.
     */
    @Test
    void everyPathMakesItsRawProducerThroughKmetaUnderTheContextClassLoader() throws Exception {
        Map<String, Object> configs = new HashMap<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader appLoader = new URLClassLoader(new URL[0], getClass().getClassLoader());
             GenericApplicationContext app = new GenericApplicationContext()) {
            app.setClassLoader(appLoader);
            app.refresh();
            KmetaProducerFactory<String, String> factory = new KmetaProducerFactory<>(configs);
            factory.setApplicationContext(app);
            List<String> order = new ArrayList<>();
            List<ClassLoader> loaders = new ArrayList<>();
            List<Producer<String, String>> raw = new ArrayList<>();
            factory.addPostProcessor(p -> {
                order.add("first");
                raw.add(p);
                loaders.add(Thread.currentThread().getContextClassLoader());
                return p;
            });
            factory.addPostProcessor(p -> {
                order.add("second");
                return p;
            });
            try {
                factory.createProducer().close();                       // the shared producer
                factory.setProducerPerThread(true);
                factory.createProducer().close();                       // this thread's
                factory.closeThreadBoundProducer();
                factory.setProducerPerThread(false);
                factory.setTransactionIdPrefix("paths-");
                Producer<String, String> tx = factory.createProducer(); // transactional (initTransactions ran)
                tx.close();
            } finally {
                factory.destroy();
            }
            assertEquals(3, raw.size(), "raw producers made: " + raw);
            raw.forEach(p -> assertTrue(KmetaProducer.metadataOf(p).isPresent(), "not kmeta-backed: " + p));
            assertEquals(List.of("first", "second", "first", "second", "first", "second"), order);
            loaders.forEach(l -> assertSame(appLoader, l, "made under the context class loader"));
            assertSame(before, Thread.currentThread().getContextClassLoader(), "restored");
        }
    }
}
