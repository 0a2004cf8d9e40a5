package dev.kmeta.producer;

import dev.kmeta.sender.internal.Handles;
import dev.kmeta.testkit.TestClients;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.producer.ProducerIt.Kind;
import dev.kmeta.producer.internal.ProducerBridge;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static dev.kmeta.producer.ProducerIt.bridge;
import static dev.kmeta.testkit.TestClients.metadataRequests;
import static dev.kmeta.testkit.TestClients.onNewThread;
import static dev.kmeta.testkit.TestClients.producerProps;
import static dev.kmeta.testkit.TestClients.report;
import static dev.kmeta.testkit.TestClients.resetProxies;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Racks and just-created topics on three real brokers (behind proxies), two with {@code broker.rack} (rack-0,
 * rack-1) and one without. Racks: every view a partitioner or KafkaProducer reads - kmeta's {@code Cluster}, the
 * Kafka {@code Cluster} view, the ProducerMetadata stand-in's {@code fetch()} and {@code MetadataSnapshot} - carries
 * each broker's rack (null for the one without); KafkaProducer 4.4's rack-aware partitioning (KIP-1123,
 * {@code partitioner.rack.aware} + {@code client.rack}) sends keyless records only to partitions led in the
 * client's rack, on kmeta as on stock kafka-clients. Just-created topics: a send (stock, on kmeta) and kmeta's own
 * {@code awaitLeader} waiting on a topic that does not exist yet succeed once it is created while they wait; a wait
 * that outlives a topic seen moments before is diagnosed TOPIC_PROPAGATING.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KmetaProducerRackAndNewTopicTest {
    private static final String RACKED = "racked";
    private static final int PARTITIONS = 6;
    private static final long LONG_BLOCK_MS = 60_000;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(3)
            .withProxies().brokerConfigOverrides(id -> id == 2 ? Map.of() : Map.of("broker.rack", "rack-" + id)));

    /** The brokers' racks as the test configured them (broker 2 has none). */
    private static String rackOf(int brokerId) {
        return brokerId == 2 ? null : "rack-" + brokerId;
    }

    /** {@value #RACKED}: partition p led by broker p % 3 (one replica), created once. */
    private static synchronized void createRackedTopic() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        if (cluster.admin().listTopics().names().get().contains(RACKED)) {
            return;
        }
        Map<Integer, List<Integer>> assignment = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            assignment.put(p, List.of(p % 3));
        }
        cluster.admin().createTopics(List.of(new NewTopic(RACKED, assignment))).all().get(30, TimeUnit.SECONDS);
        for (int p = 0; p < PARTITIONS; p++) {
            cluster.awaitLeaderEverywhere(RACKED, p, p % 3);
        }
    }

    private static Map<Integer, String> racks(Iterable<Node> nodes) {
        Map<Integer, String> racks = new TreeMap<>();
        nodes.forEach(n -> racks.put(n.id(), n.rack()));
        return racks;
    }

    private static Map<Integer, String> expectedRacks() {
        Map<Integer, String> racks = new TreeMap<>();
        for (int id : KAFKA.cluster().brokerIds()) {
            racks.put(id, rackOf(id));
        }
        return racks;
    }

    @Test
    void everyViewCarriesEachBrokersRackAndNullWhereNoneIsSet() throws Exception {
        createRackedTopic();
        Map<String, Object> p = producerProps(KAFKA.cluster().proxiedBootstrapServers());
        try (KafkaMetadata metadata = KafkaMetadata.create(p);
             Producer<String, String> producer = KmetaProducer.create(p)) {
            Cluster snapshot = metadata.awaitTopic(RACKED, 0, metadata.newSendDeadline());
            Map<Integer, String> kmeta = new TreeMap<>();
            snapshot.nodes().forEach(n -> kmeta.put(n.id(), n.rack()));
            assertEquals(expectedRacks(), kmeta, "kmeta's Cluster");
            assertNull(snapshot.node(2).rack(), "no broker.rack: null, not \"\"");
            org.apache.kafka.common.Cluster view = Handles.kafkaCluster(metadata);
            assertEquals(expectedRacks(), racks(view.nodes()), "the Kafka Cluster view");
            assertEquals(rackOf(0), view.leaderFor(new org.apache.kafka.common.TopicPartition(RACKED, 3)).rack(),
                    "a partition's leader node in the view");

            assertEquals(PARTITIONS, producer.partitionsFor(RACKED).size());
            ProducerBridge bridge = bridge(producer);
            assertEquals(expectedRacks(), racks(bridge.fetch().nodes()), "the ProducerMetadata stand-in's fetch()");
            assertEquals(expectedRacks(), racks(bridge.fetchMetadataSnapshot().cluster().nodes()),
                    "the MetadataSnapshot the producer's Sender and RecordAccumulator read");
            assertEquals(rackOf(1), producer.partitionsFor(RACKED).get(1).leader().rack(), "partitionsFor");
        }
    }

    /** The partitions the keyless records of one producer of {@code kind} went to. */
    private static Set<Integer> keylessPartitions(Kind kind, boolean rackAware, String clientRack) throws Exception {
        Map<String, Object> p = producerProps(KAFKA.cluster().proxiedBootstrapServers());
        p.put(ProducerConfig.PARTITIONER_RACK_AWARE_CONFIG, rackAware);
        p.put(ProducerConfig.CLIENT_RACK_CONFIG, clientRack);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 100); // about a record a batch: the sticky partition moves on often
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        Set<Integer> partitions = new TreeSet<>();
        try (Producer<String, String> producer = kind.create(p)) {
            String value = "v".repeat(120);
            for (int i = 0; i < 300; i++) {
                RecordMetadata m = producer.send(new ProducerRecord<>(RACKED, value)).get(30, TimeUnit.SECONDS);
                partitions.add(m.partition());
            }
        }
        return partitions;
    }

    @Test
    void rackAwarePartitioningSendsKeylessRecordsOnlyToTheClientRacksLeadersAsStockDoes() throws Exception {
        createRackedTopic();
        Set<Integer> ledInRack0 = Set.of(0, 3);
        Set<Integer> stock = keylessPartitions(Kind.STOCK, true, "rack-0");
        Set<Integer> kmeta = keylessPartitions(Kind.KMETA, true, "rack-0");
        Set<Integer> kmetaNotRackAware = keylessPartitions(Kind.KMETA, false, "rack-0");
        report("keyless records with client.rack=rack-0: stock rack-aware %s, kmeta rack-aware %s, kmeta not "
                + "rack-aware %s", stock, kmeta, kmetaNotRackAware);
        assertEquals(ledInRack0, stock, "stock kafka-clients: only the partitions led by rack-0's broker");
        assertEquals(stock, kmeta, "KafkaProducer on kmeta partitions as stock does");
        assertTrue(kmetaNotRackAware.size() > ledInRack0.size(), "without partitioner.rack.aware the records spread "
                + "over more partitions: the test tells the two apart " + kmetaNotRackAware);
    }

    /** Creates {@code topic} (3 partitions, 1 replica) once a wait on it is under way, as {@code waiting} says. */
    private static void createWhile(String topic, Future<?> wait, java.util.function.BooleanSupplier waiting)
            throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> waiting.getAsBoolean() || wait.isDone());
        assertFalse(wait.isDone(), "the wait on a topic that does not exist yet goes on within its budget");
        KAFKA.cluster().admin().createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all()
                .get(30, TimeUnit.SECONDS);
    }

    private static Map<String, Object> longBlockProps() {
        Map<String, Object> p = producerProps(KAFKA.cluster().proxiedBootstrapServers());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, LONG_BLOCK_MS);
        return p;
    }

    /** kmeta has heard UNKNOWN_TOPIC_OR_PARTITION for the topic (its diagnosis of partition 0 says so). */
    private static boolean toldUnknown(KafkaMetadata metadata, String topic) {
        Diagnosis d = metadata.diagnose(topic, 0);
        return d != null && d.cause() == Diagnosis.Cause.TOPIC_NOT_FOUND;
    }

    @Test
    void aSendOnATopicCreatedWhileItWaitsSucceedsOnStockAndOnKmeta() throws Exception {
        for (Kind kind : Kind.values()) {
            String topic = "created-while-waiting-" + kind.name().toLowerCase();
            resetProxies(KAFKA.cluster());
            try (Producer<String, String> producer = kind.create(longBlockProps())) {
                long start = System.nanoTime();
                CompletableFuture<RecordMetadata> sent = onNewThread("waiting-send",
                        () -> producer.send(new ProducerRecord<>(topic, "v")).get());
                // Stock: its third Metadata request went out (the answers before said unknown). kmeta: it was told so.
                createWhile(topic, sent, kind == Kind.STOCK ? () -> metadataRequests(KAFKA.cluster()) >= 3
                        : () -> toldUnknown(bridge(producer).metadata(), topic));
                RecordMetadata m = sent.get(LONG_BLOCK_MS, TimeUnit.MILLISECONDS);
                report("%s: send on %s created while it waited acked at offset %d after %d ms", kind, topic,
                        m.offset(), TestClients.millisSince(start));
                assertEquals(topic, m.topic());
            }
        }
    }

    @Test
    void kmetasAwaitLeaderOnATopicCreatedWhileItWaitsReturnsTheLeader() throws Exception {
        String topic = "created-while-awaiting-leader";
        try (KafkaMetadata metadata = KafkaMetadata.create(longBlockProps())) {
            CompletableFuture<dev.kmeta.cluster.Node> leader = onNewThread("waiting-send",
                    () -> metadata.awaitLeader(topic, 2, metadata.newSendDeadline()));
            createWhile(topic, leader, () -> toldUnknown(metadata, topic));
            dev.kmeta.cluster.Node n = leader.get(LONG_BLOCK_MS, TimeUnit.MILLISECONDS);
            assertTrue(KAFKA.cluster().brokerIds().contains(n.id()), n.toString());
            assertEquals(rackOf(n.id()), n.rack());
        }
    }

    /**
     * The KafkaProducer route's timeout for a topic kmeta saw moments before and the brokers now call unknown, here
     * a topic deleted right after the first send (sender's LaggingBrokerTest makes one broker lag behind the others
     * for the propagation itself): the exception names TOPIC_PROPAGATING, whose message gives both readings.
     */
    @Test
    void aSendThatOutlivesATopicSeenMomentsBeforeIsDiagnosedPropagating() throws Exception {
        String topic = "seen-then-unknown";
        KAFKA.cluster().createTopic(topic, 1, 1);
        Map<String, Object> p = producerProps(KAFKA.cluster().proxiedBootstrapServers());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1_500);
        try (Producer<String, String> producer = KmetaProducer.create(p)) {
            producer.send(new ProducerRecord<>(topic, "v")).get(30, TimeUnit.SECONDS); // kmeta has seen it
            KAFKA.cluster().deleteTopic(topic);
            KafkaMetadata metadata = bridge(producer).metadata();
            metadata.invalidate(topic, 0); // the next answer calls it unknown: kmeta drops it
            await().atMost(Duration.ofSeconds(30)).until(() -> metadata.fetch().topic(topic) == null);

            Function<Throwable, Diagnosis> diagnosis = e -> Diagnosis.from(e).orElseThrow(() ->
                    new AssertionError("no diagnosis in " + e));
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>(topic, "v")).get(30, TimeUnit.SECONDS));
            assertInstanceOf(org.apache.kafka.common.errors.TimeoutException.class, e.getCause());
            Diagnosis d = diagnosis.apply(e);
            report("send after the topic was seen and deleted: %s", e.getCause().getMessage());
            assertEquals(Diagnosis.Cause.TOPIC_PROPAGATING, d.cause(), d.message());
            assertTrue(e.getCause().getMessage().contains("created moments ago"), e.getCause().getMessage());
        }
    }
}
