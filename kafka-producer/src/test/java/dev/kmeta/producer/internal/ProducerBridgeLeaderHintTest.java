package dev.kmeta.producer.internal;

import dev.kmeta.producer.internal.network.NetworkThreadProtocol;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.FakeBroker;
import org.apache.kafka.clients.Metadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The producer's network thread after a KIP-951 leader hint ({@code updatePartitionLeadership}, which kafka-clients'
 * Sender calls right after its {@code requestUpdate}): it looks again every few ms only while kmeta has something
 * to publish. The test thread plays the network thread against a kmeta instance on testkit's {@link FakeBroker}
 * (loopback); the broker's answers are awaited in real time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProducerBridgeLeaderHintTest {
    private static final String TOPIC = "orders";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    private FakeBroker broker;
    private KafkaMetadata metadata;
    private ProducerBridge bridge;

    @BeforeEach
    void start() {
        broker = FakeBroker.start(2);
        broker.createTopic(TOPIC, 1);
        metadata = KafkaMetadata.builder(Map.of("bootstrap.servers", broker.bootstrapServers(),
                "metadata.max.age.ms", 600_000)).build();
        bridge = new ProducerBridge(metadata, 300_000, 0, 60_000, "[test] ");
        assertEquals(Long.MAX_VALUE, bridge.timeToNextUpdate(), "nothing asked yet"); // this thread is the network's
        metadata.awaitTopic(TOPIC, 0, metadata.newSendDeadline());
    }

    @AfterEach
    void stop() {
        bridge.close();
        broker.close();
    }

    /** The Sender's NOT_LEADER_OR_FOLLOWER handling: requestUpdate, then the answer's leader for the partition. */
    private Set<TopicPartition> produceErrorWithHint(int leader, int epoch, boolean refreshLandsFirst) {
        int asked = bridge.requestUpdate();
        if (refreshLandsFirst) {
            metadata.awaitUpdate(asked, metadata.newSendDeadline());
        }
        return hint(leader, epoch);
    }

    private Set<TopicPartition> hint(int leader, int epoch) {
        Metadata.LeaderIdAndEpoch hint = new Metadata.LeaderIdAndEpoch(Optional.of(leader), Optional.of(epoch));
        return bridge.updatePartitionLeadership(Map.of(TP, hint),
                List.of(new Node(leader, "127.0.0.1", broker.port(leader))));
    }

    /**
     * A hint whose epoch kmeta has is dropped on the network thread: kmeta's thread is not woken for it (kmeta would
     * find it stale and count it ignored). The newer hint after it, posted behind it, shows kmeta has seen all.
     */
    @Test
    void aStaleHintDoesNotReachKmeta() {
        assertEquals(Set.of(), hint(broker.leader(TOPIC, 0), broker.leaderEpoch(TOPIC)), "nothing hinted");
        int epoch = broker.moveLeaders(TOPIC);
        int leader = broker.leader(TOPIC, 0);
        assertEquals(Set.of(TP), hint(leader, epoch));
        await().atMost(Duration.ofSeconds(30)).until(() -> metadata.fetch().partition(TOPIC, 0).leaderEpoch() == epoch);
        assertEquals(1, metadata.stats().leaderHintsApplied());
        assertEquals(0, metadata.stats().leaderHintsIgnored(), "kmeta never saw the stale hint");
        assertEquals(2, bridge.leaderHints());
        assertEquals(1, bridge.staleLeaderHints());
    }

    /**
     * A hint kmeta already had (its refresh landed between the Sender's requestUpdate and its hint): nothing more
     * will be published for it, so the network thread goes back to sleeping on its own timers. Before: it re-polled
     * every 10 ms until some later snapshot change.
     */
    @Test
    void aStaleHintAfterTheRefreshLandedLeavesTheNetworkThreadAsleep() {
        produceErrorWithHint(broker.leader(TOPIC, 0), broker.leaderEpoch(TOPIC), true);
        assertEquals(Long.MAX_VALUE, bridge.timeToNextUpdate());
    }

    /** A newer hint: the network thread looks again until kmeta publishes it, then sleeps. */
    @Test
    void aNewerHintIsWaitedForUntilKmetaPublishesIt() {
        int epoch = broker.moveLeaders(TOPIC);
        int leader = broker.leader(TOPIC, 0);
        produceErrorWithHint(leader, epoch, true);
        long first = bridge.timeToNextUpdate();
        if (metadata.fetch().partition(TOPIC, 0).leaderEpoch() != epoch) { // not published before that call either
            assertEquals(NetworkThreadProtocol.UNWAKEABLE_LOOK_MS, first, "looks again while kmeta applies the hint");
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            var p = metadata.fetch().partition(TOPIC, 0);
            return p.leaderEpoch() == epoch && p.leaderId() == leader;
        });
        assertEquals(Long.MAX_VALUE, bridge.timeToNextUpdate());
    }

    /** The Sender's own requestUpdate still counts when its refresh has not landed and the hint was stale. */
    @Test
    void aStaleHintBeforeTheRefreshWaitsForTheRefresh() {
        int before = metadata.fetch().version();
        produceErrorWithHint(broker.leader(TOPIC, 0), broker.leaderEpoch(TOPIC), false);
        await().atMost(Duration.ofSeconds(30)).until(() -> metadata.fetch().version() > before);
        assertEquals(Long.MAX_VALUE, bridge.timeToNextUpdate());
    }
}
