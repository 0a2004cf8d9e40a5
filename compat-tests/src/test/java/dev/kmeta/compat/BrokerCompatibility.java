package dev.kmeta.compat;

import dev.kmeta.testkit.TestClients;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.examples.ExampleProducer;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.ClientSecurity;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaDistribution;
import dev.kmeta.testkit.LogCapture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What kmeta (and the example producer on it) must do against any supported broker version: one cluster per
 * version and class (2 brokers + 1 controller, RF 2, SASL_PLAINTEXT with SCRAM-SHA-512 on the client listener, a
 * {@code FaultProxy} in front of each broker, which the brokers advertise: what kmeta learns goes through them, so
 * the requests' versions are seen). Subclasses name the broker version; the expectations that differ by version
 * (Metadata v12 before 4.0, v13 from 4.0; produce by topic id only from 4.1 brokers) are stated here once.
 *
 * <p>The tests of one class run concurrently on its cluster (src/test/resources/junit-platform.properties; the
 * classes themselves one after the other): each has its own topic and client, and their waits overlap. The one that
 * blackholes every proxy takes {@link #PROXIES} exclusively, the others share it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
abstract class BrokerCompatibility {
    static final short PRODUCE = 0;
    static final short METADATA = 3;
    static final short API_VERSIONS = 18;
    /** The lock on the cluster's proxies: shared by the concurrent tests, taken alone by the one that blackholes them. */
    static final String PROXIES = "dev.kmeta.compat.proxies";
    private static final String USER = "compat";
    private static final String PASSWORD = "compat-" + UUID.randomUUID();

    KafkaCluster kafka;

    /** The brokers' distribution; null for this JVM's own (in-process 4.4). */
    abstract KafkaDistribution distribution();

    @BeforeAll
    void start() {
        long begin = System.nanoTime();
        kafka = KafkaCluster.builder().brokers(2).withProxies().clientSecurity(ClientSecurity.saslPlaintext())
                .distribution(distribution()).build().start();
        kafka.createScramUser(USER, PASSWORD);
        TestClients.report("%s", "Kafka " + kafka.kafkaVersion() + ": cluster of 2 brokers started in "
                + (System.nanoTime() - begin) / 1_000_000 + " ms");
    }

    @AfterAll
    void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    /** The highest Metadata request version the broker serves (v13 came with Kafka 4.0, KIP-1102). */
    short expectedMetadataVersion() {
        return (short) (brokerAtLeast(4, 0) ? 13 : 12);
    }

    boolean brokerAtLeast(int major, int minor) {
        KafkaDistribution d = kafka.distribution();
        return d == null || d.atLeast(major, minor);
    }

    Map<String, Object> props() {
        Map<String, Object> p = new HashMap<>(kafka.clientProperties(USER, PASSWORD));
        p.put("client.id", "compat-" + kafka.kafkaVersion() + "-" + System.nanoTime());
        p.put("request.timeout.ms", 5_000);
        p.put("reconnect.backoff.ms", 50);
        p.put("reconnect.backoff.max.ms", 200);
        return p;
    }

    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = PROXIES, mode = ResourceAccessMode.READ)
    @Test
    void metadataMatchesWhatAdminSaysWithTopicIdsAndEpochsOverTheNegotiatedVersion() throws Exception {
        kafka.createTopic("c-fetch", 4, 2);
        TopicDescription d = kafka.admin().describeTopics(List.of("c-fetch")).allTopicNames().get().get("c-fetch");
        try (KafkaMetadata m = KafkaMetadata.create(props())) {
            Cluster c = m.awaitTopic("c-fetch", m.newDeadline(Duration.ofSeconds(30)));
            assertEquals(4, c.partitionCount("c-fetch"));
            for (TopicPartitionInfo p : d.partitions()) {
                PartitionMetadata pm = c.partition("c-fetch", p.partition());
                assertEquals(p.leader().id(), pm.leaderId());
                assertTrue(pm.leaderEpoch() >= 0, "leader epochs (Metadata v7+): " + pm);
                assertEquals(kafka.proxy(p.leader().id()).port(), c.leader("c-fetch", p.partition()).port(),
                        "the advertised (proxied) client listener");
            }
            assertEquals(new UUID(d.topicId().getMostSignificantBits(), d.topicId().getLeastSignificantBits()),
                    c.topicId("c-fetch"), "topic ids (Metadata v10+)");
            assertEquals(kafka.clusterId(), c.clusterId());
            // two more answers, from the learned (proxied) brokers
            m.awaitUpdate(m.requestUpdate(), m.newDeadline(Duration.ofSeconds(10)));
            m.awaitUpdate(m.requestUpdate(), m.newDeadline(Duration.ofSeconds(10)));
            short negotiated = maxVersionThroughProxies(METADATA);
            TestClients.report("%s", "Kafka " + kafka.kafkaVersion() + ": kmeta's Metadata requests v"
                    + negotiated + ", ApiVersions v" + maxVersionThroughProxies(API_VERSIONS));
            assertEquals(expectedMetadataVersion(), negotiated, "the newest Metadata version both sides speak");
        }
    }

    short maxVersionThroughProxies(short apiKey) {
        short max = -1;
        for (int id : kafka.brokerIds()) {
            max = (short) Math.max(max, kafka.proxy(id).maxRequestVersion(apiKey));
        }
        return max;
    }

    static List<String> clientVersions() {
        return ClientJars.supported();
    }

    /**
     * The matrix's other axis: kmeta on each supported kafka-clients (in its own class loader, as in
     * {@link ClientVersionsTest}) fetches a topic from these brokers over SCRAM and the example producer produces
     * 20 records to it.
     */
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = PROXIES, mode = ResourceAccessMode.READ)
    @ParameterizedTest(name = "kafka-clients {0}")
    @MethodSource("clientVersions")
    void eachSupportedKafkaClientsFetchesAndProduces(String version) throws Exception {
        String topic = "c-clients";
        synchronized (this) {
            if (!kafka.admin().listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
                kafka.createTopic(topic, 2, 2);
            }
        }
        Map<String, Object> p = props();
        p.put("client.id", "compat-clients-" + version);
        Map<String, Object> seen = ClientJars.probe(version, p, topic);
        assertEquals(version, seen.get("version"), String.valueOf(seen));
        assertEquals(2, seen.get("partitions"), "Kafka " + kafka.kafkaVersion() + ": " + seen);
        assertEquals(20, seen.get("acked"), "Kafka " + kafka.kafkaVersion() + ": " + seen);
    }

    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = PROXIES, mode = ResourceAccessMode.READ)
    @Test
    void aMissingTopicTimesOutAsTopicNotFound() {
        try (KafkaMetadata m = KafkaMetadata.create(props())) {
            TimeoutException e = assertThrows(TimeoutException.class,
                    () -> m.awaitTopic("c-missing", m.newDeadline(Duration.ofSeconds(3))));
            Optional<Diagnosis> diagnosis = Diagnosis.from(e);
            assertTrue(diagnosis.isPresent(), e.toString());
            assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, diagnosis.get().cause(), e.getMessage());
        }
    }

    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = PROXIES, mode = ResourceAccessMode.READ)
    @Test
    void addedPartitionsAreFound() {
        kafka.createTopic("c-grow", 2, 2);
        try (KafkaMetadata m = KafkaMetadata.create(props())) {
            assertEquals(2, m.awaitTopic("c-grow", m.newDeadline(Duration.ofSeconds(30))).partitionCount("c-grow"));
            kafka.addPartitions("c-grow", 5);
            Cluster c = m.awaitTopic("c-grow", 4, m.newDeadline(Duration.ofSeconds(30)));
            assertEquals(5, c.partitionCount("c-grow"));
            assertNotNull(c.leader("c-grow", 4));
        }
    }

    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = PROXIES, mode = ResourceAccessMode.READ)
    @ResourceLock(Resources.SYSTEM_ERR) // LogCapture replaces System.err meanwhile
    @Test
    void wrongScramPasswordFailsAtOnceAsAnAuthenticationFailure() {
        Map<String, Object> bad = props();
        bad.putAll(kafka.clientProperties(USER, "not-" + PASSWORD));
        try (LogCapture logs = LogCapture.at("warn", "dev.kmeta"); // the failed handshake's ERRORs: expected here
             KafkaMetadata m = KafkaMetadata.create(bad)) {
            long begin = System.nanoTime();
            AuthenticationException e = assertThrows(AuthenticationException.class,
                    () -> m.awaitTopic("c-fetch", m.newDeadline(Duration.ofSeconds(30))));
            long ms = (System.nanoTime() - begin) / 1_000_000;
            assertTrue(ms < 10_000, "failed after " + ms + " ms: " + e);
            assertEquals(Diagnosis.Cause.AUTHENTICATION_FAILED, Diagnosis.from(e).orElseThrow().cause());
            assertTrue(logs.text().contains("metadata unavailable: org.apache.kafka.common.errors."
                    + "SaslAuthenticationException"), logs.text());
        }
    }

    /**
     * The leader of a partition moves (reassigned replicas, then a preferred election) while the example producer
     * sends: every record is acked, kmeta's snapshot names the new leader, and the produce answers' KIP-951 hints
     * (brokers 3.7+) reach kmeta; before 3.7 there are none, and the producer's invalidation makes kmeta refresh. The produce requests go by topic id (v13) only where the broker speaks it (4.1+),
     * by name before: the answers are matched either way.
     */
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = PROXIES, mode = ResourceAccessMode.READ)
    @Test
    void aLeaderMovesWhileTheExampleProducerSendsAndItsHintsReachKmeta() throws Exception {
        String topic = "c-move";
        kafka.createTopic(topic, 1, 2);
        int oldLeader = kafka.leader(topic, 0);
        int newLeader = kafka.brokerIds().stream().filter(id -> id != oldLeader).findFirst().orElseThrow();
        Map<String, Object> p = props();
        p.put("acks", "all");
        p.put("delivery.timeout.ms", 60_000);
        try (ExampleProducer producer = ExampleProducer.create(p)) {
            KafkaMetadata m = producer.metadata();
            List<CompletableFuture<ExampleProducer.Ack>> acks = new ArrayList<>();
            AtomicBoolean moved = new AtomicBoolean();
            CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
                // until the move is seen and 200 records more went out; bounded in count
                int after = 0;
                for (int i = 0; i < 200_000 && after < 200; i++) {
                    acks.add(producer.send(topic, 0, null, ("r" + i).getBytes(StandardCharsets.UTF_8)));
                    if (moved.get()) {
                        after++;
                    }
                }
            }, r -> new Thread(r, "compat-sender").start());
            await().atMost(Duration.ofSeconds(30)).until(() -> producer.stats().recordsAcked() > 100);
            kafka.admin().alterPartitionReassignments(Map.of(new TopicPartition(topic, 0),
                    Optional.of(new NewPartitionReassignment(List.of(newLeader, oldLeader))))).all()
                    .get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                List<Integer> replicas = new ArrayList<>();
                kafka.admin().describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0)
                        .replicas().forEach(n -> replicas.add(n.id()));
                return replicas.equals(List.of(newLeader, oldLeader));
            });
            kafka.admin().electLeaders(ElectionType.PREFERRED, java.util.Set.of(new TopicPartition(topic, 0)))
                    .all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                Node leader = m.fetch().leader(topic, 0);
                return leader != null && leader.id() == newLeader;
            });
            moved.set(true);
            sender.get(60, TimeUnit.SECONDS);
            int lastLeader = -1;
            for (CompletableFuture<ExampleProducer.Ack> ack : acks) {
                lastLeader = ack.get(60, TimeUnit.SECONDS).leaderId();
            }
            ExampleProducer.Stats stats = producer.stats();
            short produceVersion = maxVersionThroughProxies(PRODUCE);
            TestClients.report("%s", "Kafka " + kafka.kafkaVersion() + ": " + acks.size()
                    + " records acked across the leader move " + oldLeader + " -> " + newLeader + ", hints fed "
                    + stats.leaderHintsFed() + ", hints applied by kmeta " + m.stats().leaderHintsApplied()
                    + ", invalidations " + stats.invalidations()
                    + ", Produce v" + produceVersion + ", Metadata v" + maxVersionThroughProxies(METADATA));
            assertEquals(0, stats.recordsFailed(), String.valueOf(stats));
            assertEquals(newLeader, lastLeader, "the last records were acked by the new leader");
            if (brokerAtLeast(3, 7)) {
                assertTrue(stats.leaderHintsFed() > 0, "KIP-951 hints in the produce answers (3.7+): " + stats);
                assertTrue(m.stats().leaderHintsApplied() > 0, "kmeta applied them");
            } else {
                // no hints before 3.7 (Produce v9): the producer tells kmeta the leader is in doubt, and kmeta's
                // refresh of that topic finds the new leader
                assertEquals(0, stats.leaderHintsFed(), String.valueOf(stats));
                assertEquals(0, m.stats().leaderHintsApplied());
                assertTrue(stats.invalidations() > 0, "the fallback: the partition invalidated, " + stats);
            }
            assertEquals(brokerAtLeast(4, 1) ? 13 : brokerAtLeast(3, 9) ? 11 : brokerAtLeast(3, 7) ? 10 : 9,
                    produceVersion, "Produce v13 (topic ids) needs a 4.1+ broker; v11 on 3.9, v10 on 3.7 (KIP-951), v9 on 3.6");
        }
    }

    /**
     * Every learned broker (its proxy) stops answering: kmeta goes back to the bootstrap addresses after
     * {@code metadata.recovery.rebootstrap.trigger.ms} and gets an answer there (with Metadata v13, 4.0+ brokers could
     * also ask for it with REBOOTSTRAP_REQUIRED; the time trigger works on every version).
     */
    @ResourceLock(value = PROXIES, mode = ResourceAccessMode.READ_WRITE)
    @Test
    void learnedBrokersUnreachableSendsKmetaBackToTheBootstrapAddresses() {
        kafka.createTopic("c-reboot", 1, 2);
        Map<String, Object> p = props();
        p.put("metadata.recovery.rebootstrap.trigger.ms", 1_500);
        p.put("request.timeout.ms", 1_000);
        p.put("socket.connection.setup.timeout.ms", 500);
        p.put("socket.connection.setup.timeout.max.ms", 500);
        try (KafkaMetadata m = KafkaMetadata.create(p)) {
            m.awaitTopic("c-reboot", m.newDeadline(Duration.ofSeconds(30)));
            m.awaitUpdate(m.requestUpdate(), m.newDeadline(Duration.ofSeconds(10)));
            int before = bootstrapAnswers(m);
            kafka.brokerIds().forEach(id -> kafka.proxy(id).blackhole().resetAll());
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    m.requestUpdate();
                    return bootstrapAnswers(m) > before;
                });
                assertTrue(m.stats().rebootstraps() >= 1, "rebootstraps: " + m.stats().rebootstraps());
            } finally {
                kafka.brokerIds().forEach(id -> kafka.proxy(id).pass());
            }
        }
    }

    private static int bootstrapAnswers(KafkaMetadata m) {
        int n = 0;
        for (String id : List.of("-1", "-2")) {
            var record = m.evidence().get(id);
            n += record == null ? 0 : record.answers();
        }
        return n;
    }
}
