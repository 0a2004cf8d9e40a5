package dev.kmeta.compat;

import dev.kmeta.testkit.TestClients;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The protocol the KafkaProducer route rides, pinned per kafka-clients release: on each 4.x release Maven Central
 * serves (each in its own class loader, all against one 2-broker 4.4 cluster), {@link ProducerCallsProbe} records
 * which {@code ProducerMetadata} methods KafkaProducer, Sender, TransactionManager and the producer's NetworkClient
 * call on kmeta's stand-in, on which thread, in which order, in seven scenarios (first send to a new topic, a known
 * topic, a missing topic, a partition beyond the count, a leader moved while producing (KIP-951 hint), an idempotent
 * producer, a transactional one with {@code sendOffsetsToTransaction}); the normalised trace
 * ({@link ProducerCallTraces}) must equal the checked-in one for that version
 * ({@code src/test/resources/producer-call-traces/kafka-clients-<version>.txt}), else the test fails naming the first
 * difference (scenario, line, expected, actual).
 *
 * <p>To (re)write the traces, e.g. for a new version, then review the diff:
 * {@code ./mvnw -B -pl compat-tests -am verify -Dtest=ProducerCallTracesTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dkmeta.traces.write=true}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ProducerCallTracesTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(2);
    private static final String TOPIC = "traces";

    static List<String> versions() {
        return ClientJars.releases();
    }

    @BeforeAll
    static void topic() {
        KAFKA.cluster().createTopic(TOPIC, 1, 1);
    }

    @Execution(ExecutionMode.CONCURRENT)
    @ParameterizedTest(name = "kafka-clients {0}")
    @MethodSource("versions")
    void kafkaClientsCallsTheStandInAsPinned(String version) throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        String hintTopic = "traces-hint-" + version;
        cluster.createTopic(hintTopic, 1, 2);
        Runnable moveLeader = () -> moveLeader(cluster, hintTopic);
        long startNs = System.nanoTime();
        Map<String, Object> seen = ClientJars.runWith(version, ProducerCallsProbe.class,
                Map.of("props", Map.of("bootstrap.servers", cluster.bootstrapServers()), "topic", TOPIC,
                        "hintTopic", hintTopic, "moveLeader", moveLeader));
        List<String> actual = ProducerCallTraces.render(version, seen);
        ProducerCallTraces.writeRaw(version, seen);
        TestClients.report("%s", "ProducerCallTracesTest, kafka-clients " + version + ": "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs) + " ms (" + ProducerCallsProbe.SCENARIOS
                .stream().map(s -> s + " " + seen.get(s + ".ms") + " ms").collect(java.util.stream.Collectors
                        .joining(", ")) + ")");
        if (Boolean.getBoolean(ProducerCallTraces.WRITE_PROPERTY)) {
            ProducerCallTraces.write(version, actual);
            System.out.println("[traces] wrote " + ProducerCallTraces.file(version).toAbsolutePath());
            return;
        }
        List<String> expected = ProducerCallTraces.read(version);
        assertNotNull(expected, "no pinned trace for kafka-clients " + version + " at "
                + ProducerCallTraces.file(version).toAbsolutePath() + "; write it with -D"
                + ProducerCallTraces.WRITE_PROPERTY + "=true and review it. Recorded:\n" + String.join("\n", actual));
        String difference = ProducerCallTraces.firstDifference(version, expected, actual);
        assertNull(difference, () -> difference + "\nRecorded trace:\n" + String.join("\n", actual));
    }

    /** Moves a 1-partition, 2-replica topic's leader to the other broker and waits until every broker knows it. */
    private static void moveLeader(KafkaCluster cluster, String topic) {
        int from = cluster.leader(topic, 0);
        int to = cluster.brokerIds().stream().filter(id -> id != from).findFirst().orElseThrow();
        TopicPartition tp = new TopicPartition(topic, 0);
        try {
            cluster.admin().alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(
                    List.of(to, from))))).all().get(30, TimeUnit.SECONDS);
            org.awaitility.Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> {
                cluster.admin().electLeaders(ElectionType.PREFERRED, java.util.Set.of(tp)).partitions()
                        .get(30, TimeUnit.SECONDS);
                return cluster.leader(topic, 0) == to;
            });
        } catch (Exception e) {
            throw new IllegalStateException("moving the leader of " + topic, e);
        }
        cluster.awaitLeaderEverywhere(topic, 0, to);
    }

    /**
     * docs/kafka-producer.md shows the pinned 4.4.0 trace of a first send to a new topic: each line of its block, up
     * to the explanation after two spaces, is the trace's line.
     */
    @Test
    void theDocsShowThePinnedTrace() throws Exception {
        String marker = "<!-- pinned: kafka-clients-4.4.0 new-topic";
        List<String> doc = java.nio.file.Files.readAllLines(java.nio.file.Paths.get(System.getProperty(
                "kmeta.compat.producer.doc", "../docs/kafka-producer.md")));
        int at = 0;
        while (at < doc.size() && !doc.get(at).startsWith(marker)) {
            at++;
        }
        assertTrue(at < doc.size() - 1 && doc.get(at + 1).equals("```"), "docs/kafka-producer.md has " + marker);
        List<String> shown = new java.util.ArrayList<>();
        for (int i = at + 2; i < doc.size() && !doc.get(i).equals("```"); i++) {
            shown.add(doc.get(i).split(" {2,}")[0]);
        }
        List<String> trace = ProducerCallTraces.read("4.4.0");
        assertNotNull(trace, "the pinned 4.4.0 trace");
        int start = trace.indexOf("## new-topic") + 2; // after the outcome line
        int end = start;
        while (end < trace.size() && !trace.get(end).isEmpty()) {
            end++;
        }
        assertEquals(trace.subList(start, end), shown, "docs/kafka-producer.md's 4.4.0 new-topic block vs the trace");
    }

    /** The normalisation keeps the order of one thread's calls and folds loops, whatever their count. */
    @Test
    void loopsFoldWhateverTheirCount() {
        List<String> once = List.of("fetch", "add", "add", "requestUpdateForTopic", "awaitUpdate", "fetch",
                "maybeThrowExceptionForTopic");
        List<String> thrice = new java.util.ArrayList<>(once);
        for (int i = 0; i < 2; i++) {
            thrice.addAll(once.subList(2, once.size()));
        }
        assertEquals(List.of("fetch", "add", "requestUpdateForTopic", "awaitUpdate", "fetch",
                "maybeThrowExceptionForTopic"), ProducerCallTraces.foldRepeats(once));
        assertEquals(ProducerCallTraces.foldRepeats(once), ProducerCallTraces.foldRepeats(thrice));
        assertEquals(List.of("requestUpdate", "updatePartitionLeadership", "close"), ProducerCallTraces.foldRepeats(
                List.of("requestUpdate", "updatePartitionLeadership", "requestUpdate", "updatePartitionLeadership",
                        "close")));
        assertEquals(List.of("a", "b", "a", "c"), ProducerCallTraces.foldRepeats(List.of("a", "b", "a", "c")));
        assertTrue(ProducerCallTraces.firstDifference("4.4.0", List.of("# h", "", "## new-topic", "outcome acked",
                "app add"), List.of("# h", "", "## new-topic", "outcome acked", "app fetch"))
                .startsWith("kafka-clients 4.4.0, scenario new-topic, line 2 "));
    }
}
