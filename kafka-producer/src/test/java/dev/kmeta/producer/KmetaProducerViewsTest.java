package dev.kmeta.producer;

import dev.kmeta.sender.internal.Handles;
import dev.kmeta.producer.ProducerIt.Kind;
import dev.kmeta.producer.internal.ProducerBridge;
import dev.kmeta.producer.internal.view.ViewStats;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.PartitionInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static dev.kmeta.producer.ProducerIt.bridge;
import static dev.kmeta.testkit.TestClients.producerProps;
import static dev.kmeta.testkit.TestClients.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Kafka views a kmeta-backed KafkaProducer reads are scoped to what is asked (issue 28), on a real broker: a
 * sending thread builds nothing after a change to another topic and at most its own topic's view after a change to
 * it; each producer's network thread sees its own topics only, and rebuilds for none of another producer's changes
 * nor for a refresh that changed nothing; a custom partitioner sees its record's topic as a stock producer shows it;
 * and once the last producer of an instance closes, nothing of its snapshots or views stays reachable from a thread
 * that sent through it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KmetaProducerViewsTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder());

    /** One long-lived application thread that sends: its thread-locals outlive every producer it used. */
    private static final ExecutorService SENDER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "it-views-sender");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stopSender() {
        SENDER.shutdownNow();
    }

    private static <T> T onSender(Callable<T> call) throws Exception {
        return SENDER.submit(call).get(30, TimeUnit.SECONDS);
    }

    private static void send(Producer<String, String> producer, String topic, int records) throws Exception {
        onSender(() -> {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v")).get(30, TimeUnit.SECONDS);
            }
            return null;
        });
    }

    /** Waits until kmeta's snapshot shows {@code partitions} partitions of {@code topic} (asking for refreshes). */
    private static void awaitKmetaSees(KafkaMetadata metadata, String topic, int partitions) {
        await().atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO).until(() -> {
            metadata.awaitUpdate(metadata.requestUpdate(), metadata.newDeadline(Duration.ofSeconds(5)));
            return metadata.fetch().partitionCount(topic) == partitions;
        });
    }

    private static Set<String> networkTopics(ProducerBridge bridge) {
        return bridge.fetchMetadataSnapshot().cluster().topics();
    }

    @Test
    void aChangeToAnotherTopicCostsTheSendingThreadNothingAndItsOwnTopicOnlyItsPartitions() throws Exception {
        KAFKA.cluster().createTopic("views-a", 3, 1);
        KAFKA.cluster().createTopic("views-b", 2, 1);
        try (Producer<String, String> producer = KmetaProducer.create(producerProps(KAFKA.cluster().bootstrapServers()))) {
            ProducerBridge bridge = bridge(producer);
            send(producer, "views-a", 1);
            send(producer, "views-b", 1);
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    networkTopics(bridge).containsAll(Set.of("views-a", "views-b")));
            send(producer, "views-a", 1);
            ViewStats stats = bridge.views().stats();
            long sendPath0 = stats.sendPathBuilds();

            KAFKA.cluster().addPartitions("views-b", 5);
            awaitKmetaSees(bridge.metadata(), "views-b", 5);
            send(producer, "views-a", 20);
            long afterOther = stats.sendPathBuilds() - sendPath0;

            send(producer, "views-b", 20);
            long afterOwn = stats.sendPathBuilds() - sendPath0 - afterOther;
            report("send-path builds after a change to another topic: %d partitions; after a change to its own "
                    + "(5 partitions): %d; %s", afterOther, afterOwn, stats);
            assertEquals(0, afterOther, "a change to another topic costs a sending thread nothing: " + stats);
            assertTrue(afterOwn <= 2L * 5, "at most the changed topic's objects and its single-topic view: " + stats);
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    bridge.fetchMetadataSnapshot().cluster().partitionCountForTopic("views-b") == 5);
        }
    }

    @Test
    void eachProducersNetworkThreadSeesItsOwnTopicsAndRebuildsOnlyForThem() throws Exception {
        KAFKA.cluster().createTopic("own-1", 2, 1);
        KAFKA.cluster().createTopic("own-2", 2, 1);
        try (Producer<String, String> first = KmetaProducer.create(producerProps(KAFKA.cluster().bootstrapServers()));
             Producer<String, String> second = KmetaProducer.create(producerProps(KAFKA.cluster().bootstrapServers()))) {
            ProducerBridge one = bridge(first);
            ProducerBridge two = bridge(second);
            assertTrue(Handles.sameInstance(one.metadata(), two.metadata()), "one shared kmeta instance");
            send(first, "own-1", 1);
            send(second, "own-2", 1);
            assertTrue(one.metadata().fetch().topicNames().containsAll(Set.of("own-1", "own-2")));
            await().atMost(Duration.ofSeconds(10)).until(() -> networkTopics(one).equals(Set.of("own-1"))
                    && networkTopics(two).equals(Set.of("own-2")));
            assertEquals(Set.of("own-1"), one.views().topicsInScope());

            long firstBuilt = one.views().stats().producerViewsBuilt();
            long secondBuilt = two.views().stats().producerViewsBuilt();
            KAFKA.cluster().addPartitions("own-2", 4);
            awaitKmetaSees(one.metadata(), "own-2", 4);
            for (int round = 0; round < 3; round++) { // refreshes that change nothing
                one.metadata().awaitUpdate(one.metadata().requestUpdate(), one.metadata().newDeadline(Duration.ofSeconds(5)));
            }
            send(first, "own-1", 5);
            send(second, "own-2", 5);
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    two.fetchMetadataSnapshot().cluster().partitionCountForTopic("own-2") == 4);
            assertEquals(Set.of("own-1"), networkTopics(one));
            report("after a change to the other producer's topic and 3 empty refreshes: first producer %s; second %s",
                    one.views().stats(), two.views().stats());
            assertEquals(firstBuilt, one.views().stats().producerViewsBuilt(),
                    "no rebuild for another producer's topic nor for a refresh that changed nothing");
            assertTrue(one.views().stats().producerViewsReused() > 0, "the view was checked and kept");
            assertTrue(two.views().stats().producerViewsBuilt() > secondBuilt, "its own topic changed: rebuilt");
        }
    }

    /**
     * A send to a topic kmeta does not have yet adds it to the producer's topics: the network thread's view is kept (a
     * build would make the same Kafka objects again, which the sending threads then read cold - twice per new topic
     * under churn), and the topic's arrival still rebuilds it. Fails with a rebuild per joining topic, and with a kept
     * view that no longer notices the topic arrive.
     */
    @Test
    void aTopicJoiningBeforeKmetaHasItKeepsTheNetworkThreadsViewAndItsArrivalRebuildsIt() throws Exception {
        KAFKA.cluster().createTopic("join-1", 2, 1);
        Map<String, Object> props = producerProps(KAFKA.cluster().bootstrapServers());
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1_000);
        try (Producer<String, String> producer = KmetaProducer.create(props)) {
            ProducerBridge b = bridge(producer);
            send(producer, "join-1", 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> networkTopics(b).equals(Set.of("join-1")));
            long built = b.views().stats().producerViewsBuilt();

            boolean failed = onSender(() -> {
                try {
                    producer.send(new ProducerRecord<>("join-late", "k", "v")).get(30, TimeUnit.SECONDS);
                    return false;
                } catch (Exception e) {
                    return true; // no such topic yet: max.block.ms
                }
            });
            assertTrue(failed, "the topic did not exist");
            assertTrue(b.views().topicsInScope().contains("join-late"), "it joined the producer's topics");
            assertEquals(Set.of("join-1"), networkTopics(b), "the view, looked at after the join");
            assertEquals(built, b.views().stats().producerViewsBuilt(),
                    "kept, not built again, for a topic kmeta lacks");

            KAFKA.cluster().createTopic("join-late", 3, 1);
            send(producer, "join-late", 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> networkTopics(b).equals(Set.of("join-1", "join-late")));
            assertEquals(3, b.fetchMetadataSnapshot().cluster().partitionCountForTopic("join-late"));
            assertTrue(b.views().stats().producerViewsBuilt() > built, "its arrival rebuilt the view");
        }
    }

    /**
     * A send whose topic joined the producer before the network thread's view holds it shows the topic alone; once
     * that view holds it, sends show that view - no look keeps the topic's view alone (a second Kafka index of the
     * topic) for as long as the snapshot stays - and when the view is replaced (another topic kmeta already has
     * joins), sends show the new one. Fails with the looks keeping the first view a send showed (either part).
     */
    @Test
    void sendsShowTheNetworkThreadsCurrentViewOnceItHoldsTheirTopic() throws Exception {
        KAFKA.cluster().createTopic("shown-1", 2, 1);
        KAFKA.cluster().createTopic("shown-2", 2, 1);
        try (Producer<String, String> producer = KmetaProducer.create(producerProps(KAFKA.cluster().bootstrapServers()))) {
            ProducerBridge b = bridge(producer);
            b.metadata().subscribe("shown-1");
            b.metadata().subscribe("shown-2"); // kmeta has both before this producer uses them: no new version then
            awaitKmetaSees(b.metadata(), "shown-1", 2);
            awaitKmetaSees(b.metadata(), "shown-2", 2);
            Cluster alone = onSender(() -> {
                b.views().add("shown-1", System.currentTimeMillis()); // KafkaProducer's add, on the producer's clock
                return b.views().forSend("shown-1"); // before the network thread's view holds it
            });
            Cluster network = b.views().currentCluster(); // the network thread's view, as its next loop makes it
            assertEquals(Set.of("shown-1"), network.topics());
            assertNotSame(network, alone, "the first send showed the topic alone");
            assertSame(network, onSender(() -> b.views().forSend("shown-1")),
                    "the network thread's view, not the topic's view alone that the first send showed");

            send(producer, "shown-2", 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> networkTopics(b).equals(Set.of("shown-1", "shown-2")));
            assertSame(b.views().currentCluster(), onSender(() -> b.views().forSend("shown-1")),
                    "the view that replaced the one a send on this topic showed");
        }
    }

    /** Records what a custom partitioner is given, per client id. */
    public static final class RecordingPartitioner implements Partitioner {
        static final Map<String, String> SEEN = new ConcurrentHashMap<>();
        private String clientId;

        @Override
        public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes,
                             Cluster cluster) {
            List<PartitionInfo> partitions = cluster.partitionsForTopic(topic);
            Map<Integer, Integer> leaders = new TreeMap<>();
            partitions.forEach(p -> leaders.put(p.partition(), p.leader() == null ? -1 : p.leader().id()));
            SEEN.put(clientId, partitions.size() + " partitions, leaders " + leaders + ", available "
                    + cluster.availablePartitionsForTopic(topic).size() + ", nodes "
                    + cluster.nodes().stream().map(n -> n.id()).sorted().collect(Collectors.toList())
                    + ", topic id " + cluster.topicId(topic));
            return Math.floorMod(key.hashCode(), partitions.size());
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
            clientId = (String) configs.get(ProducerConfig.CLIENT_ID_CONFIG);
        }
    }

    @Test
    void aCustomPartitionerSeesItsRecordsTopicAsAStockProducerShowsIt() throws Exception {
        KAFKA.cluster().createTopic("partitioned", 4, 1);
        List<String> seen = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            Map<String, Object> p = producerProps(KAFKA.cluster().bootstrapServers());
            p.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, RecordingPartitioner.class.getName());
            try (Producer<String, String> producer = kind.create(p)) {
                send(producer, "partitioned", 3);
            }
            seen.add(RecordingPartitioner.SEEN.get((String) p.get(ProducerConfig.CLIENT_ID_CONFIG)));
        }
        report("custom partitioner: stock sees %s; kmeta %s", seen.get(0), seen.get(1));
        assertTrue(seen.get(0).startsWith("4 partitions"), seen.get(0));
        assertEquals(seen.get(0), seen.get(1), "the same view of the record's topic");
    }

    @Test
    void nothingOfTheInstanceStaysReachableAfterItsLastProducerCloses() throws Exception {
        KAFKA.cluster().createTopic("retained", 10, 1);
        List<WeakReference<Object>> refs = sendThroughTwoProducersAndClose();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> {
            System.gc();
            return refs.stream().allMatch(r -> r.get() == null);
        });
    }

    /** Weak references to what the producers held: kmeta's snapshot and topic, each kind of Kafka view. */
    private static List<WeakReference<Object>> sendThroughTwoProducersAndClose() throws Exception {
        List<WeakReference<Object>> refs = new ArrayList<>();
        Producer<String, String> first = KmetaProducer.create(producerProps(KAFKA.cluster().bootstrapServers()));
        Producer<String, String> second = KmetaProducer.create(producerProps(KAFKA.cluster().bootstrapServers()));
        send(first, "retained", 5);
        send(second, "retained", 5);
        ProducerBridge bridge = bridge(first);
        refs.add(new WeakReference<>(bridge.metadata().fetch()));
        refs.add(new WeakReference<>(bridge.metadata().fetch().topic("retained")));
        refs.add(new WeakReference<>(bridge.fetchMetadataSnapshot()));
        refs.add(new WeakReference<>(onSender(bridge::fetch)));
        first.close();
        second.close();
        return refs;
    }
}
