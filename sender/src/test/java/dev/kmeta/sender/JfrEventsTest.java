package dev.kmeta.sender;

import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.FakeKafkaClient;
import dev.kmeta.testkit.KafkaClusterExtension;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kmeta's JFR events, recorded in this JVM while an instance works against a real broker and read back from the
 * recording file, as {@code jfr print --events dev.kmeta.*} would: a wait past a miss (and none for cache hits), the
 * refreshes with their node and topic count, a diagnosed timeout, an applied leader hint, and a rebootstrap; and, on
 * a fake client (a real broker keeps its cluster id), a cluster id change.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JfrEventsTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(1)
            .withProxies());

    private static final List<String> EVENTS = List.of("dev.kmeta.MetadataWait", "dev.kmeta.MetadataRefresh",
            "dev.kmeta.MetadataTimeout", "dev.kmeta.LeaderHintApplied", "dev.kmeta.Rebootstrap",
            "dev.kmeta.ClusterIdChange");

    @Test
    void aRecordingHoldsWaitsRefreshesTimeoutsLeaderHintsAndRebootstrapsButNoCacheHits() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("jfr-orders", 2, 1);
        int brokerId = cluster.brokerIds().get(0);
        // As RebootstrapTest: the bootstrap is the broker's own port under a test name, the broker advertises its
        // proxy; blackholing the proxy leaves only the bootstrap, so the sender rebootstraps.
        String bootstrap = "kafka.boot.test:" + cluster.brokerAddress(brokerId).getPort();
        HostResolverHook dns = host -> host.equals("kafka.boot.test")
                ? new InetAddress[] {InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1})}
                : resolve(host);
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrap);
        props.put("client.id", "jfr");
        props.put("allow.auto.create.topics", false);
        props.put("retry.backoff.ms", 50);
        props.put("metadata.recovery.rebootstrap.trigger.ms", 1_500);
        props.put("request.timeout.ms", 1_000);
        props.put("socket.connection.setup.timeout.ms", 500);
        props.put("socket.connection.setup.timeout.max.ms", 500);
        props.put("reconnect.backoff.ms", 50);
        props.put("reconnect.backoff.max.ms", 200);
        Path file = Files.createTempFile("kmeta-jfr", ".jfr");
        PartitionMetadata hinted;
        try (Recording recording = new Recording();
             KafkaMetadata m = KafkaMetadata.builder(props).hostResolver(dns).build()) {
            EVENTS.forEach(name -> recording.enable(name).withThreshold(Duration.ZERO));
            recording.start();

            m.awaitTopic("jfr-orders", 1, m.newDeadline(Duration.ofSeconds(30))); // a miss: the thread waits for the answer
            for (int i = 0; i < 1_000; i++) {
                m.awaitLeader("jfr-orders", i % 2, m.newSendDeadline()); // cache hits: nothing recorded
            }
            TimeoutException timeout = assertThrows(TimeoutException.class,
                    () -> m.awaitTopic("jfr-missing", MetadataClient.ANY_PARTITION, m.newDeadline(Duration.ofMillis(1_500))));

            PartitionMetadata p = m.fetch().topic("jfr-orders").partition(0);
            m.onLeaderHint("jfr-orders", 0, p.leaderId(), p.leaderEpoch() + 1, null); // a produce response's hint
            await().atMost(Duration.ofSeconds(20)).until(() -> m.stats().leaderHintsApplied() == 1);
            hinted = p;

            int bootstrapAnswers = m.evidence().get("-1").answers();
            cluster.proxy(brokerId).blackhole();
            cluster.proxy(brokerId).resetAll();
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    m.requestUpdate();
                    return m.stats().rebootstraps() >= 1 && m.evidence().get("-1").answers() > bootstrapAnswers;
                });
            } finally {
                cluster.proxy(brokerId).pass();
            }
            recording.stop();
            recording.dump(file);
            assertTrue(timeout.getMessage().contains("TOPIC_NOT_FOUND"), timeout.getMessage());
        }
        Map<String, List<RecordedEvent>> byName = RecordingFile.readAllEvents(file).stream()
                .filter(e -> "jfr".equals(e.getString("clientId")))
                .collect(Collectors.groupingBy(e -> e.getEventType().getName()));
        Files.deleteIfExists(file);

        List<RecordedEvent> waits = byName.get("dev.kmeta.MetadataWait");
        List<RecordedEvent> ordersWaits = waits.stream().filter(e -> "jfr-orders".equals(e.getString("topic")))
                .collect(Collectors.toList());
        assertEquals(1, ordersWaits.size(), "one wait, and nothing for 1,000 cache hits: " + ordersWaits);
        RecordedEvent wait = ordersWaits.get(0);
        assertEquals("ANSWERED", wait.getString("outcome"));
        assertEquals(1, wait.getInt("partition"));
        assertFalse(wait.getDuration().isNegative() || wait.getDuration().isZero(), "the wait's duration");
        assertTrue(waits.stream().anyMatch(e -> "jfr-missing".equals(e.getString("topic"))
                && "TIMED_OUT".equals(e.getString("outcome"))), "the timed-out wait: " + waits);

        List<RecordedEvent> timeouts = byName.get("dev.kmeta.MetadataTimeout");
        assertEquals(1, timeouts.size(), String.valueOf(timeouts));
        RecordedEvent t = timeouts.get(0);
        assertEquals("TOPIC_NOT_FOUND", t.getString("cause"));
        assertEquals("jfr-missing", t.getString("topic"));
        assertEquals(-1, t.getInt("partition"));
        assertEquals(Duration.ofMillis(1_500), t.getDuration("budgetMs"));
        assertTrue(t.getString("seen").contains("UNKNOWN_TOPIC_OR_PARTITION"), t.getString("seen"));
        assertFalse(t.getString("fix").isEmpty());

        List<RecordedEvent> refreshes = byName.get("dev.kmeta.MetadataRefresh");
        assertTrue(refreshes.stream().anyMatch(e -> "ANSWERED".equals(e.getString("outcome"))
                && e.getInt("topicCount") >= 1 && !e.getDuration().isNegative()), "answered: " + refreshes);
        assertTrue(refreshes.stream().anyMatch(e -> e.getString("node").startsWith("broker " + brokerId + " at ")),
                "a request to the learned broker: " + refreshes);
        assertTrue(refreshes.stream().anyMatch(e -> e.getString("node").startsWith("bootstrap kafka.boot.test")),
                "the first request, to the bootstrap: " + refreshes);
        assertTrue(refreshes.stream().anyMatch(e -> e.getBoolean("full")), "the first request is full");

        List<RecordedEvent> hints = byName.get("dev.kmeta.LeaderHintApplied");
        assertEquals(1, hints.size(), String.valueOf(hints));
        assertEquals("jfr-orders", hints.get(0).getString("topic"));
        assertEquals(0, hints.get(0).getInt("partition"));
        assertEquals(hinted.leaderId(), hints.get(0).getInt("leaderId"));
        assertEquals(hinted.leaderEpoch() + 1, hints.get(0).getInt("leaderEpoch"));

        List<RecordedEvent> rebootstraps = byName.get("dev.kmeta.Rebootstrap");
        assertTrue(rebootstraps != null && !rebootstraps.isEmpty(), "a rebootstrap: " + byName.keySet());
        assertEquals(bootstrap, rebootstraps.get(0).getString("bootstrapServers"));
        java.time.Instant rebootstrapAt = rebootstraps.get(0).getStartTime();
        assertTrue(refreshes.stream().anyMatch(e -> e.getStartTime().isAfter(rebootstrapAt)
                && e.getString("node").startsWith("bootstrap kafka.boot.test")
                && "ANSWERED".equals(e.getString("outcome"))), "asked the bootstrap again after it: " + refreshes);
    }

    @Test
    void aClusterIdChangeIsRecordedWithBothIds() throws Exception {
        FakeKafkaClient client = new FakeKafkaClient();
        AtomicReference<String> clusterId = new AtomicReference<>("cluster-A");
        client.answers(node -> {
            MetadataResponseData d = new MetadataResponseData().setClusterId(clusterId.get()).setControllerId(1);
            d.brokers().add(new MetadataResponseBroker().setNodeId(1).setHost("b1.test").setPort(9092));
            return new MetadataResponse(d, (short) 13);
        });
        Map<String, Object> props = Map.of("bootstrap.servers", "boot.test:9092", "client.id", "jfr-cluster-id");
        Path file = Files.createTempFile("kmeta-jfr-cluster-id", ".jfr");
        try (Recording recording = new Recording();
             DrivenKafkaMetadata m = KafkaMetadata.builder(props).ticker(client::nanoTime).buildDriven()) {
            recording.enable("dev.kmeta.ClusterIdChange");
            recording.start();
            client.updater(m.metadataUpdater());
            m.attach(client);
            client.runUntil(() -> "cluster-A".equals(m.fetch().clusterId()), 60_000);
            clusterId.set("cluster-B");
            m.requestUpdate();
            client.runUntil(() -> m.stats().clusterIdChanges() == 1, 60_000);
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("dev.kmeta.ClusterIdChange"))
                .collect(Collectors.toList());
        Files.deleteIfExists(file);
        assertEquals(1, events.size(), String.valueOf(events));
        assertEquals("jfr-cluster-id", events.get(0).getString("clientId"));
        assertEquals("cluster-A", events.get(0).getString("previousClusterId"));
        assertEquals("cluster-B", events.get(0).getString("clusterId"));
    }

    private static InetAddress[] resolve(String host) throws UnknownHostException {
        if (host.endsWith(".test")) {
            throw new UnknownHostException(host);
        }
        return InetAddress.getAllByName(host);
    }
}
