package dev.kmeta.sender;

import dev.kmeta.testkit.LogCapture;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.Diagnosis.Cause;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.kmeta.sender.ItSupport.fastProps;
import static dev.kmeta.sender.ItSupport.millisSince;
import static dev.kmeta.sender.ItSupport.onNewThread;
import static dev.kmeta.sender.ItSupport.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every metadata timeout against real brokers names the cause a user would have to fix, with the evidence in the
 * message: advertised listeners nobody can reach, topics that do not exist, partitions out of range, partitions
 * without a leader, bootstrap addresses that now lead to another cluster, and a cluster too slow to answer.
 *
 * <p>Cluster A: three brokers behind FaultProxies (they advertise the proxies; {@link KafkaCluster#bootstrapServers()}
 * is their real CLIENT ports). Cluster B: one broker, only there to be the "other cluster".
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DiagnosisTest {
    @RegisterExtension
    static final KafkaClusterExtension A = KafkaClusterExtension.of(KafkaCluster.builder().brokers(3).withProxies());
    @RegisterExtension
    static final KafkaClusterExtension B = KafkaClusterExtension.brokers(1);

    /**
     * How late after its budget a timeout may arrive. The budgets are short (1 - 1.5 s: a timeout and what it says
     * is all these tests check); the tolerance is what a loaded machine needs, whatever the budget.
     */
    private static final long TOLERANCE_MS = 1_000;

    @BeforeEach
    @AfterEach
    void healthyCluster() {
        KafkaCluster cluster = A.cluster();
        for (int id : cluster.brokerIds()) {
            if (!cluster.runningBrokerIds().contains(id)) {
                cluster.startBroker(id);
            }
            cluster.proxy(id).retarget("127.0.0.1", cluster.brokerAddress(id).getPort()).pass().latencyMs(0);
        }
    }

    /**
     * Waits for a topic (or partition) that will not come, and returns the Kafka-compatible timeout, after checking
     * it arrived once the budget was spent and not later than the tolerance.
     */
    private static KafkaMetadataTimeoutException timesOut(KafkaMetadata m, String topic, int partition,
                                                          long budgetMs) {
        long start = System.nanoTime();
        KafkaMetadataTimeoutException e = assertThrows(KafkaMetadataTimeoutException.class,
                () -> m.awaitTopic(topic, partition, m.newDeadline(Duration.ofMillis(budgetMs))));
        long tookMs = millisSince(start);
        assertTrue(tookMs >= budgetMs - 10 && tookMs <= budgetMs + TOLERANCE_MS,
                "took " + tookMs + " ms for a budget of " + budgetMs + " ms: " + e.getMessage());
        assertInstanceOf(org.apache.kafka.common.errors.TimeoutException.class, e, "Kafka catch blocks work");
        assertNotNull(e.diagnosis(), e.getMessage());
        report("%s after %d ms: %s", e.diagnosis().cause(), tookMs, e.getMessage());
        report("  evidence: %s", e.diagnosis().evidence());
        return e;
    }

    private static KafkaMetadata proxiedClient() {
        return KafkaMetadata.create(fastProps(A.cluster().proxiedBootstrapServers()));
    }

    /**
     * SASL settings against a PLAINTEXT listener (cluster B's): the broker refuses the SASL handshake itself, so the
     * diagnosis says the listener does not speak SASL, not just "authentication failed" (read as a wrong password).
     */
    @Test
    void saslAgainstAPlaintextListenerSaysTheListenerDoesNotSpeakSasl() {
        Map<String, Object> props = fastProps(B.cluster().bootstrapServers());
        props.put("security.protocol", "SASL_PLAINTEXT");
        props.put("sasl.mechanism", "SCRAM-SHA-256");
        props.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                + "username=\"u\" password=\"s3cret\";");
        try (LogCapture logs = LogCapture.at("warn", "dev.kmeta"); // the handshake's ERROR lines: expected, captured
             KafkaMetadata m = KafkaMetadata.create(props)) {
            org.apache.kafka.common.errors.AuthenticationException e = assertThrows(
                    org.apache.kafka.common.errors.AuthenticationException.class,
                    () -> m.awaitTopic("any", m.newDeadline(Duration.ofSeconds(30))));
            assertTrue(logs.text().contains("metadata unavailable: org.apache.kafka.common.errors."
                    + "IllegalSaslStateException: the listener does not speak SASL"), logs.text());
            assertTrue(!logs.text().contains("s3cret"), "never the password in the log");
            Diagnosis d = Diagnosis.from(e).orElseThrow();
            report("%s: %s", d.cause(), d.message());
            assertEquals(Cause.AUTHENTICATION_FAILED, d.cause());
            assertTrue(d.seen().contains("the listener does not speak SASL (security.protocol=SASL_PLAINTEXT): it "
                    + "answered the SASL handshake with ILLEGAL_SASL_STATE and no mechanisms, as a PLAINTEXT listener "
                    + "does; the user and password were never checked"), d.seen());
            assertTrue(e.getMessage().contains("the listener does not speak SASL"), e.getMessage());
            assertTrue(!e.getMessage().contains("s3cret") && !d.message().contains("s3cret"), e.getMessage());
        }
    }

    @Test
    void advertisedListenerUnreachableWhileTheBootstrapAnswers() {
        KafkaCluster cluster = A.cluster();
        cluster.createTopic("advertised", 3, 3);
        for (int id : cluster.brokerIds()) {
            cluster.proxy(id).refuse(); // what the brokers advertise: nothing listens there now
        }
        // The bootstrap addresses are the brokers' real CLIENT ports: they work.
        try (KafkaMetadata m = KafkaMetadata.create(fastProps(cluster.bootstrapServers()))) {
            // Learn the brokers first (an answer with no topic), so that the topic is asked of the advertised ones.
            m.requestUpdate();
            await().atMost(Duration.ofSeconds(10)).until(() -> !m.fetch().nodes().isEmpty());
            assertEquals(3, m.fetch().nodes().size());
            assertTrue(m.fetch().nodes().stream().allMatch(n -> n.port() == cluster.proxy(n.id()).port()),
                    "the brokers advertise their proxies: " + m.fetch().nodes());

            KafkaMetadataTimeoutException e = timesOut(m, "advertised", -1, 1_500);
            Diagnosis d = e.diagnosis();
            assertEquals(Cause.ADVERTISED_LISTENER_UNREACHABLE, d.cause(), e.getMessage());
            Matcher broker = Pattern.compile("broker (\\d+) advertises 127\\.0\\.0\\.1:(\\d+), unreachable from here")
                    .matcher(e.getMessage());
            assertTrue(broker.find(), e.getMessage());
            int id = Integer.parseInt(broker.group(1));
            assertEquals(cluster.proxy(id).port(), Integer.parseInt(broker.group(2)), e.getMessage());
            assertTrue(e.getMessage().startsWith("Topic advertised not present in metadata after 1500 ms: "
                    + "ADVERTISED_LISTENER_UNREACHABLE: "), e.getMessage());
            assertTrue(e.getMessage().contains("fix advertised.listeners"), e.getMessage());
            assertTrue(m.evidence().records().stream().anyMatch(r -> r.isBootstrap() && r.everAnswered()),
                    "the bootstrap answered: " + m.evidence().records());
            assertTrue(d.evidence().stream().anyMatch(line -> line.contains("broker " + id + " at 127.0.0.1:"
                    + cluster.proxy(id).port())), d.evidence().toString());
        }
    }

    @Test
    void topicThatDoesNotExistIsNotFound() {
        Map<String, Object> p = fastProps(A.cluster().proxiedBootstrapServers());
        p.put("allow.auto.create.topics", false);
        try (KafkaMetadata m = KafkaMetadata.create(p)) {
            KafkaMetadataTimeoutException e = timesOut(m, "no-such-topic", -1, 1_500);
            assertEquals(Cause.TOPIC_NOT_FOUND, e.diagnosis().cause(), e.getMessage());
            assertTrue(e.getMessage().startsWith("Topic no-such-topic not present in metadata after 1500 ms: "
                    + "TOPIC_NOT_FOUND: the brokers answered UNKNOWN_TOPIC_OR_PARTITION "), e.getMessage());
            Matcher n = Pattern.compile("UNKNOWN_TOPIC_OR_PARTITION (\\d+) time\\(s\\) in a row").matcher(
                    e.getMessage());
            assertTrue(n.find(), e.getMessage());
            assertTrue(Integer.parseInt(n.group(1)) >= 2, "kmeta kept asking during the wait: " + e.getMessage());
            assertTrue(e.getMessage().contains("(the request did not allow auto-creation)"), e.getMessage());
            assertTrue(e.getMessage().contains("create the topic"), e.getMessage());
            assertEquals(-1, e.diagnosis().partitionCount());
        }
    }

    @Test
    void partitionBeyondTheTopicsCountIsOutOfRange() {
        KafkaCluster cluster = A.cluster();
        cluster.createTopic("two-partitions", 2, 3);
        try (KafkaMetadata m = proxiedClient()) {
            KafkaMetadataTimeoutException e = timesOut(m, "two-partitions", 5, 1_000);
            Diagnosis d = e.diagnosis();
            assertEquals(Cause.PARTITION_OUT_OF_RANGE, d.cause(), e.getMessage());
            assertTrue(e.getMessage().startsWith("Partition 5 of topic two-partitions not present in metadata after "
                    + "1000 ms: PARTITION_OUT_OF_RANGE: the topic has 2 partitions"), e.getMessage());
            assertEquals(2, d.partitionCount());
            assertEquals(5, d.partition());
            assertEquals("two-partitions", d.topic());
        }
    }

    @Test
    void partitionWhoseOnlyReplicaIsDownHasNoLeader() {
        KafkaCluster cluster = A.cluster();
        cluster.createTopic("lonely", 1, 1);
        int owner = cluster.leader("lonely", 0);
        cluster.stopBroker(owner);
        await().atMost(Duration.ofSeconds(20)).until(() -> cluster.leader("lonely", 0) == -1);
        try (KafkaMetadata m = proxiedClient()) {
            KafkaMetadataTimeoutException e = timesOut(m, "lonely", 0, 1_500);
            Diagnosis d = e.diagnosis();
            assertEquals(Cause.LEADER_NOT_AVAILABLE, d.cause(), e.getMessage());
            assertTrue(e.getMessage().startsWith("Partition 0 of topic lonely not present in metadata after 1500 ms: "
                    + "LEADER_NOT_AVAILABLE: the partition has had no leader (replicas [" + owner + "]"),
                    e.getMessage());
            assertEquals(1, d.partitionCount());
            assertEquals(1, m.fetch().partitionCount("lonely"), "the topic itself is known");
        } finally {
            cluster.startBroker(owner);
        }
    }

    @Test
    void bootstrapLeadingToAnotherClusterIsAClusterIdChange() throws Exception {
        KafkaCluster a = A.cluster();
        KafkaCluster b = B.cluster();
        a.createTopic("a-only", 2, 3);
        int bPort = b.brokerAddress(b.brokerIds().get(0)).getPort();
        Path jfr = Files.createTempFile("kmeta-cluster-id-change", ".jfr");
        try (LogCapture logs = LogCapture.at("info", "dev.kmeta");
             Recording recording = new Recording();
             KafkaMetadata m = proxiedClient()) {
            recording.enable("dev.kmeta.ClusterIdChange");
            recording.start();
            assertEquals(2, m.awaitTopic("a-only", m.newDeadline(Duration.ofSeconds(30))).partitionCount("a-only"));
            assertEquals(a.clusterId(), m.fetch().clusterId());

            // The names the client knows now lead to cluster B (a DNS or load balancer change), and the open
            // connections drop; the producer asks for fresh metadata, as after any disconnect.
            for (int id : a.brokerIds()) {
                a.proxy(id).retarget("127.0.0.1", bPort).resetAll();
            }
            try {
                await().atMost(Duration.ofSeconds(15)).until(() -> {
                    m.requestUpdate();
                    return b.clusterId().equals(m.fetch().clusterId());
                });
            } catch (ConditionTimeoutException e) {
                throw new AssertionError("kmeta did not reach cluster B: state " + m.state() + ", " + m.stats()
                        + "\nevidence " + m.evidence().records() + "\nkmeta's log:\n" + logs.text(), e);
            }
            assertNull(m.fetch().topic("a-only"), "the metadata of cluster A was dropped: " + m.fetch());
            assertTrue(m.stats().clusterIdChanges() >= 1, "counted");

            KafkaMetadataTimeoutException e = timesOut(m, "a-only", -1, 1_000);
            Diagnosis d = e.diagnosis();
            assertEquals(Cause.CLUSTER_ID_CHANGED, d.cause(), e.getMessage());
            assertEquals(a.clusterId(), d.previousClusterId());
            assertEquals(b.clusterId(), d.clusterId());
            assertTrue(e.getMessage().contains("the cluster id changed from " + a.clusterId() + " to "
                    + b.clusterId()), e.getMessage());
            assertTrue(logs.text().contains("cluster id changed from " + a.clusterId() + " to " + b.clusterId()),
                    "kmeta logged the change");
            recording.stop();
            recording.dump(jfr);
            // The JFR event of the change, from real brokers: exactly this change, with both ids.
            List<RecordedEvent> changes = RecordingFile.readAllEvents(jfr).stream()
                    .filter(ev -> ev.getEventType().getName().equals("dev.kmeta.ClusterIdChange")).toList();
            assertEquals(1, changes.size(), String.valueOf(changes));
            assertEquals(a.clusterId(), changes.get(0).getString("previousClusterId"));
            assertEquals(b.clusterId(), changes.get(0).getString("clusterId"));
        } finally {
            Files.deleteIfExists(jfr);
        }
    }

    @Test
    void aWaitDuringWhichTheClusterChangedSaysSo() throws Exception {
        KafkaCluster a = A.cluster();
        KafkaCluster b = B.cluster();
        int bPort = b.brokerAddress(b.brokerIds().get(0)).getPort();
        try (KafkaMetadata m = proxiedClient()) {
            m.requestUpdate();
            await().atMost(Duration.ofSeconds(10)).until(() -> a.clusterId().equals(m.fetch().clusterId()));
            // A send waits for a topic that is to be created; meanwhile the bootstrap starts leading to cluster B.
            long sent = m.stats().requestsSent();
            CompletableFuture<Cluster> send = onNewThread("changing-send",
                    () -> m.awaitTopic("coming-soon", m.newDeadline(Duration.ofMillis(2_500))));
            await().atMost(Duration.ofSeconds(3)).until(() -> m.stats().requestsSent() > sent);
            for (int id : a.brokerIds()) {
                a.proxy(id).retarget("127.0.0.1", bPort).resetAll();
            }
            ExecutionException ex = assertThrows(ExecutionException.class, () -> send.get(10, TimeUnit.SECONDS));
            KafkaMetadataTimeoutException e = assertInstanceOf(KafkaMetadataTimeoutException.class, ex.getCause());
            report("%s: %s", e.diagnosis().cause(), e.getMessage());
            assertEquals(b.clusterId(), m.fetch().clusterId());
            assertEquals(Cause.CLUSTER_ID_CHANGED, e.diagnosis().cause(), e.getMessage());
            assertEquals(a.clusterId(), e.diagnosis().previousClusterId());
        }
    }

    @Test
    void brokersThatAnswerTooSlowlyAreNoAnswerInTime() {
        KafkaCluster cluster = A.cluster();
        cluster.createTopic("slow", 1, 3);
        Map<String, Object> p = fastProps(cluster.proxiedBootstrapServers());
        p.put("request.timeout.ms", 30_000); // the connections stay up: only the answers are late
        try (KafkaMetadata m = KafkaMetadata.create(p)) {
            m.requestUpdate();
            await().atMost(Duration.ofSeconds(10)).until(() -> !m.fetch().nodes().isEmpty());
            for (int id : cluster.brokerIds()) {
                cluster.proxy(id).latencyMs(5_000);
            }
            KafkaMetadataTimeoutException e = timesOut(m, "slow", -1, 1_000);
            assertEquals(Cause.NO_ANSWER_IN_TIME, e.diagnosis().cause(), e.getMessage());
            assertTrue(e.getMessage().contains("raise max.block.ms"), e.getMessage());
            assertTrue(m.evidence().records().stream().noneMatch(ConnectionEvidence.Record::failingNow),
                    "nothing failed: " + m.evidence().records());
        }
    }
}
