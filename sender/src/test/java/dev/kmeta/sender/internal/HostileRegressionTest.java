package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.metadata.internal.RefreshRequest;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import java.time.Duration;

/**
 * The bugs {@link HostileResponsesTest} found, each pinned by the shrunk script that showed it, through the real
 * translation and the manager's driver.
 */
class HostileRegressionTest {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final MetadataManager manager = new MetadataManager(MetadataConfig.from(Map.of("client.id", "regression",
            "kmeta.metadata.jitter", "0")), nanos::get);

    /**
     * A topic first described without an id (an answer below v10, or a broker that sent the zero id), then with the
     * same partitions and its id: the id must be learned, or a later re-creation (new id, fewer partitions, epochs
     * restarting) would be merged into the old topic - its lower epochs rejected as stale, its count kept.
     */
    @Test
    void aTopicIdLearnedLateIsKeptSoThatAReCreationIsSeen() {
        subscribe("orders");
        answer(topic("orders", Uuid.ZERO_UUID, partition(0, 1, 5), partition(1, 2, 5)));
        assertNull(manager.fetch().topic("orders").topicId());

        Uuid id = new Uuid(1, 1);
        answer(topic("orders", id, partition(0, 1, 5), partition(1, 2, 5)));
        TopicMetadata learned = manager.fetch().topic("orders");
        assertEquals(new UUID(1, 1), learned.topicId(), "the id the answer gave");
        assertSame(learned, manager.fetch().topic(new UUID(1, 1)));

        answer(topic("orders", new Uuid(2, 2), partition(0, 0, 0)));
        TopicMetadata recreated = manager.fetch().topic("orders");
        assertEquals(1, recreated.partitionCount(), "the re-created topic's count");
        assertEquals(0, recreated.partition(0).leaderEpoch(), "the re-created topic's epochs restart");
        assertNull(manager.fetch().topic(new UUID(1, 1)), "the old id is gone");
    }

    /**
     * The bootstrap now leads to another cluster, which answers a known topic with LEADER_NOT_AVAILABLE and no
     * partitions: the old cluster's partitions and leaders must not stay under the new cluster id (broker ids of two
     * clusters overlap, so they would route sends to another cluster's brokers).
     */
    @Test
    void aNewClusterAnsweringATopicWithoutPartitionsDropsTheOldClustersMetadata() {
        subscribe("orders");
        answer(topic("orders", new Uuid(1, 1), partition(0, 1, 5), partition(1, 2, 5)));
        assertNotNull(manager.fetch().topic("orders"));

        Cluster next = answer("cluster-B", topicError("orders", (short) 5));
        assertEquals("cluster-B", next.clusterId());
        assertNull(next.topic("orders"), "cluster-A's orders under cluster-B");
        assertNull(next.topic(new UUID(1, 1)));
        assertThrows(MetadataTimeoutException.class, () -> manager.awaitTopic("orders", 0,
                Deadline.after(Duration.ZERO, nanos::get)), "a send must not be routed with the old cluster's leaders");
    }

    /**
     * A topic the old cluster refused (TOPIC_AUTHORIZATION_FAILED) stays marked after the bootstrap leads to another
     * cluster: every send to it would fail at once with "not authorized" on the old cluster's ACLs, and nothing
     * would ask the new cluster (a refused wait sends no request) until the next full refresh.
     */
    @Test
    void aNewClusterDropsTheOldClustersRefusals() {
        subscribe("orders");
        subscribe("secret");
        answer(topic("orders", new Uuid(1, 1), partition(0, 1, 5)), topicError("secret", (short) 29));
        assertEquals(java.util.Set.of("secret"), manager.fetch().unauthorizedTopics());

        Cluster next = answer("cluster-B", topic("orders", new Uuid(2, 2), partition(0, 1, 0)));
        assertEquals(java.util.Set.of(), next.unauthorizedTopics(), "cluster-A's refusal under cluster-B");
        assertThrows(MetadataTimeoutException.class, () -> manager.awaitTopic("secret",
                Deadline.after(Duration.ZERO, nanos::get)), "a wait asks the new cluster instead of failing on the old one's ACLs");
    }

    // ------------------------------------------------------------------ helpers

    private void subscribe(String topic) {
        assertThrows(MetadataTimeoutException.class, () -> manager.awaitTopic(topic, Deadline.after(Duration.ZERO, nanos::get)));
    }

    /** One sender round answered with {@code topics} by brokers 0..2 of cluster-A, at v13. */
    private Cluster answer(MetadataResponseTopic... topics) {
        return answer("cluster-A", topics);
    }

    private Cluster answer(String clusterId, MetadataResponseTopic... topics) {
        nanos.addAndGet(10_000_000_000L); // past any backoff
        manager.requestUpdate();
        manager.poll(nanos.get() / 1_000_000);
        RefreshRequest r = manager.beginRefresh(nanos.get() / 1_000_000);
        assertNotNull(r, "a request is due");
        MetadataResponseData d = new MetadataResponseData().setClusterId(clusterId).setControllerId(0);
        for (int b = 0; b < 3; b++) {
            d.brokers().add(new MetadataResponseBroker().setNodeId(b).setHost("127.0.0.1").setPort(19092 + b));
        }
        for (MetadataResponseTopic t : topics) {
            d.topics().add(t);
        }
        manager.onResponse(r, ResponseTranslator.translate(new MetadataResponse(d, (short) 13), manager.fetch()),
                nanos.get() / 1_000_000);
        return manager.fetch();
    }

    static MetadataResponseTopic topic(String name, Uuid id, MetadataResponsePartition... partitions) {
        return new MetadataResponseTopic().setName(name).setTopicId(id)
                .setPartitions(new ArrayList<>(List.of(partitions)));
    }

    static MetadataResponseTopic topicError(String name, short error) {
        return new MetadataResponseTopic().setName(name).setErrorCode(error);
    }

    static MetadataResponsePartition partition(int index, int leader, int epoch) {
        return new MetadataResponsePartition().setPartitionIndex(index).setLeaderId(leader).setLeaderEpoch(epoch)
                .setReplicaNodes(List.of(leader)).setIsrNodes(List.of(leader));
    }
}
