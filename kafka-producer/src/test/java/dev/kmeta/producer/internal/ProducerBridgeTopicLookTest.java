package dev.kmeta.producer.internal;

import dev.kmeta.producer.internal.abi.KafkaClientsAbi;
import dev.kmeta.producer.internal.view.TopicLook;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A send's look at its topic (issue 38): the first send on a snapshot version whose leaders accepted kmeta's
 * connection notes them proven on its {@link TopicLook}, so the next sends on that version skip the leader verdict and
 * show the view the look kept; the producer's network thread drops the look when kmeta's snapshot moves on, so it
 * keeps no entry or view of an older snapshot reachable, and a re-created topic's new object is judged again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProducerBridgeTopicLookTest {
    private static final String TOPIC = "orders";

    private BridgeOnFakeBroker f;

    @BeforeEach
    void start() {
        f = new BridgeOnFakeBroker(TOPIC, 3, "look-test");
    }

    @AfterEach
    void stop() {
        f.close();
    }

    /** What KafkaProducer's send() asks of the stand-in for a known topic. */
    private org.apache.kafka.common.Cluster send() {
        f.bridge.onSend(TOPIC, null);
        org.apache.kafka.common.Cluster view = f.bridge.fetch();
        f.bridge.add(TOPIC, KafkaClientsAbi.producerNowMs()); // the clock idle topics expire on
        assertEquals(3, view.partitionCountForTopic(TOPIC));
        return view;
    }

    @Test
    void aSendNotesItsTopicsLeadersProvenAndTheLookGoesWhenTheSnapshotMovesOn() {
        send(); // the topic joins the producer's topics
        org.apache.kafka.common.Cluster view = send();
        dev.kmeta.cluster.Cluster snapshot = f.metadata.fetch();
        TopicLook look = f.bridge.views().look(TOPIC, snapshot);
        assertTrue(look.isProven(), "kmeta's connection to the leader was accepted: no verdict for the next sends");
        assertSame(look, f.bridge.views().look(TOPIC, snapshot), "one look per version");
        assertSame(view, send(), "the next send shows the view the look kept");

        f.broker.createTopic("other", 1);
        f.metadata.awaitTopic("other", 0, f.metadata.newSendDeadline()); // a new snapshot version
        f.bridge.fetchMetadataSnapshot(); // the Sender's loop reads its view: the network-thread half refreshes
        assertNotSame(look, f.bridge.views().look(TOPIC, snapshot), "the older version's look was dropped");
        // a send on the new version proves the leaders again (kmeta's snapshot may move once more meanwhile)
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            dev.kmeta.cluster.Cluster now = f.metadata.fetch();
            send();
            return f.metadata.fetch() == now && f.bridge.views().look(TOPIC, now).isProven();
        });
    }

    @Test
    void aChangedTopicsLookIsDroppedAndItsLeadersAreJudgedAgain() {
        send();
        send();
        dev.kmeta.cluster.Cluster snapshot = f.metadata.fetch();
        assertTrue(f.bridge.views().look(TOPIC, snapshot).isProven());

        f.broker.deleteTopic(TOPIC); // re-created with 4 partitions: a new topic object, with a proof of its own
        f.broker.createTopic(TOPIC, 4);
        f.metadata.awaitTopic(TOPIC, 3, f.metadata.newSendDeadline());
        f.bridge.fetchMetadataSnapshot();
        dev.kmeta.cluster.Cluster grown = f.metadata.fetch();
        assertEquals(4, grown.topic(TOPIC).partitionCount());
        assertFalse(f.bridge.views().look(TOPIC, grown).isProven(), "no proof carried from the older topic object");
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            dev.kmeta.cluster.Cluster now = f.metadata.fetch();
            f.bridge.onSend(TOPIC, null);
            boolean fourPartitions = f.bridge.fetch().partitionCountForTopic(TOPIC) == 4;
            f.bridge.add(TOPIC, KafkaClientsAbi.producerNowMs()); // the clock idle topics expire on
            return fourPartitions && f.metadata.fetch() == now && f.bridge.views().look(TOPIC, now).isProven();
        });
    }
}
