package dev.kmeta.producer;

import dev.kmeta.producer.internal.ProducerBridge;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.internal.Handles;
import dev.kmeta.testkit.FakeBroker;
import org.apache.kafka.clients.MetadataSnapshot;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.producer.ProducerIt.bridge;
import static dev.kmeta.testkit.TestClients.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 38, items 4 and 5, on testkit's {@link FakeBroker}: the producers of one kmeta instance that use the same
 * topics read one network-thread view, and the Kafka objects the route makes ({@code PartitionInfo}, {@code Node})
 * are one per instance whatever the number of producers; and once the last producer of an instance closes, nothing
 * the route made for a 100,000-partition instance stays reachable while the instance lives on for another user,
 * and nothing of its snapshot once that user's handle closed too - though the handle is still referenced, as the P5k
 * harness kept its closed handle.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KmetaProducerSharedViewsTest {
    private static FakeBroker broker;

    /** One long-lived application thread that sends: its thread-locals outlive every producer it used. */
    private static final ExecutorService SENDER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "it-shared-views-sender");
        t.setDaemon(true);
        return t;
    });

    @BeforeAll
    static void start() {
        broker = FakeBroker.start(3);
    }

    @AfterAll
    static void stop() {
        SENDER.shutdownNow();
        broker.close();
    }

    private static Map<String, Object> props() {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", broker.bootstrapServers());
        p.put("key.serializer", StringSerializer.class);
        p.put("value.serializer", StringSerializer.class);
        p.put("metadata.max.idle.ms", 3_600_000); // no topic leaves a view inside the test
        p.put("max.block.ms", 60_000);
        return p;
    }

    private static <T> T onSender(Callable<T> call) throws Exception {
        return SENDER.submit(call).get(120, TimeUnit.SECONDS);
    }

    /** One record to each of {@code topics}, from the long-lived sending thread, all acknowledged. */
    private static void sendToEach(Producer<String, String> producer, List<String> topics) throws Exception {
        onSender(() -> {
            List<Future<RecordMetadata>> acks = new ArrayList<>(topics.size());
            for (String topic : topics) {
                acks.add(producer.send(new ProducerRecord<>(topic, "k", "v")));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(60, TimeUnit.SECONDS);
            }
            return null;
        });
    }

    private static Set<String> networkTopics(ProducerBridge bridge) {
        return bridge.fetchMetadataSnapshot().cluster().topics();
    }

    @Test
    void producersOfOneInstanceThatUseTheSameTopicsReadOneView() throws Exception {
        List<String> both = List.of("shared-a", "shared-b", "shared-c");
        for (String topic : both) {
            broker.createTopic(topic, 4);
        }
        try (Producer<String, String> first = KmetaProducer.create(props());
             Producer<String, String> second = KmetaProducer.create(props());
             Producer<String, String> third = KmetaProducer.create(props())) {
            ProducerBridge one = bridge(first);
            ProducerBridge two = bridge(second);
            ProducerBridge other = bridge(third);
            assertTrue(Handles.sameInstance(one.metadata(), two.metadata()), "one shared kmeta instance");
            sendToEach(first, both);
            sendToEach(second, both);
            sendToEach(third, List.of("shared-a"));
            await().atMost(Duration.ofSeconds(30)).until(() -> networkTopics(one).equals(Set.copyOf(both))
                    && networkTopics(two).equals(Set.copyOf(both)) && networkTopics(other).equals(Set.of("shared-a")));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> one.fetchMetadataSnapshot() == two.fetchMetadataSnapshot());

            MetadataSnapshot view = one.fetchMetadataSnapshot();
            Cluster mine = view.cluster();
            Cluster theirs = other.fetchMetadataSnapshot().cluster();
            report("two producers on 3 topics and one on 1: %d views on the instance; %s; %s; %s",
                    one.views().instanceViews(), one.views().stats(), two.views().stats(), other.views().stats());
            assertSame(view, two.fetchMetadataSnapshot(), "the same topics: one network-thread view");
            assertSame(mine, two.fetchMetadataSnapshot().cluster());
            assertNotSame(mine, theirs, "other topics: a view of their own");
            assertEquals(2, one.views().instanceViews(), "one view per set of topics, not per producer");
            assertSame(mine.partitionsForTopic("shared-a").get(0), theirs.partitionsForTopic("shared-a").get(0),
                    "one PartitionInfo per partition on the instance");
            for (int id = 0; id < broker.nodeCount(); id++) {
                assertSame(mine.nodeById(id), theirs.nodeById(id), "one Node per broker on the instance");
            }
            WeakReference<Cluster> dropped = new WeakReference<>(theirs);
            theirs = null;
            third.close();
            assertEquals(1, one.views().instanceViews(), "a view no producer reads is dropped");
            // and nothing refers to it any more: not the topic objects it was made of (their hint for a sending
            // thread's fetch() named it while the instance kept it), though they stay in kmeta's snapshot
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                System.gc();
                return dropped.get() == null;
            });
        }
    }

    /**
     * At 100,000 partitions (1,000 topics x 100), two producers warmed on every topic, beside an application's own
     * handle on the same instance (as the P5k harness made one to learn the topics): once both producers closed, the
     * Kafka objects the route made (views, {@code PartitionInfo}s, {@code Node}s) go though the instance lives on; once
     * the handle closed too, kmeta's snapshot goes though the handle is still referenced (the harness kept its closed
     * handle in a local: 14-15 MB at 100k stayed reachable). A thread that sent through the producers lives on.
     */
    @Test
    void nothingOfA100kPartitionInstanceStaysReachableAfterItsLastProducerCloses() throws Exception {
        List<String> names = new ArrayList<>();
        for (int t = 0; t < 1_000; t++) {
            names.add(String.format(Locale.ROOT, "retained-%04d", t));
        }
        broker.createTopics(names, 100);
        KafkaMetadata app = KafkaMetadata.shared(props());
        app.prefetch(names, app.newDeadline(Duration.ofSeconds(60)));
        List<WeakReference<Object>> routeObjects = warmTwoProducersAndClose(app, names);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
            System.gc();
            return routeObjects.stream().allMatch(r -> r.get() == null);
        });

        List<WeakReference<Object>> snapshot = List.of(new WeakReference<>(app.fetch()),
                new WeakReference<>(app.fetch().topic(names.get(0))));
        app.close(); // and still referenced, below
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
            System.gc();
            return snapshot.stream().allMatch(r -> r.get() == null);
        });
        assertEquals(0, app.fetch().topicNames().size(), "a closed instance keeps no snapshot: " + app);
    }

    /** Weak references to what the route made for two producers warmed on every topic, once they are closed. */
    private static List<WeakReference<Object>> warmTwoProducersAndClose(KafkaMetadata app, List<String> names)
            throws Exception {
        Producer<String, String> first = KmetaProducer.create(props());
        Producer<String, String> second = KmetaProducer.create(props());
        ProducerBridge bridge = bridge(first);
        assertTrue(Handles.sameInstance(app, bridge.metadata()), "the producers share the application's instance");
        sendToEach(first, names);
        sendToEach(second, names);
        await().atMost(Duration.ofSeconds(60)).until(() -> networkTopics(bridge).size() == names.size()
                && networkTopics(bridge(second)).size() == names.size());
        MetadataSnapshot view = bridge.fetchMetadataSnapshot();
        assertEquals(100_000, view.cluster().partitionCountForTopic(names.get(0)) * names.size());
        List<WeakReference<Object>> refs = new ArrayList<>();
        refs.add(new WeakReference<>(view));
        refs.add(new WeakReference<>(view.cluster().partitionsForTopic(names.get(999)).get(99)));
        refs.add(new WeakReference<>(view.cluster().nodeById(0)));
        refs.add(new WeakReference<>(onSender(bridge::fetch)));
        first.close();
        second.close();
        return refs;
    }
}
