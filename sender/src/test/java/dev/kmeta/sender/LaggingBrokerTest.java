package dev.kmeta.sender;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.sender.ItSupport.fastProps;
import static dev.kmeta.sender.ItSupport.onNewThread;
import static dev.kmeta.sender.ItSupport.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Brokers that disagree about a new topic, for real: three brokers behind client proxies, broker 2 reaching the
 * controller through a proxy of its own. With that proxy blackholed, broker 2 stops following the controller's
 * metadata and keeps answering from what it had (the controller's session timeout is raised so that it is not
 * fenced meanwhile), so a topic created then is known to brokers 0 and 1 and UNKNOWN_TOPIC_OR_PARTITION on broker 2.
 * kmeta learns the topic from broker 0, is then left only broker 2 to ask: the topic is dropped, a wait for it times
 * out as TOPIC_PROPAGATING; and a wait that is still under way when broker 2 catches up gets the topic.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LaggingBrokerTest {
    private static final int LAGGING = 2;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(3)
            .withProxies().withControllerProxy(LAGGING).controllerConfig("broker.session.timeout.ms", "120000"));

    @AfterEach
    void passEverything() {
        KafkaCluster c = KAFKA.cluster();
        c.controllerProxy(LAGGING).pass();
        c.brokerIds().forEach(id -> c.proxy(id).pass());
    }

    /** Only {@code id}'s client proxy lets kmeta through; the others drop their connections and refuse new ones. */
    private static void onlyReachable(int id) {
        KafkaCluster c = KAFKA.cluster();
        for (int b : c.brokerIds()) {
            FaultProxy p = c.proxy(b);
            if (b == id) {
                p.pass();
            } else {
                p.refuse().resetAll();
            }
        }
    }

    /**
     * The topic, seen on broker 0 and then unknown to lagging broker 2: a wait times out as TOPIC_PROPAGATING; seen on
     * broker 0 again and unknown on broker 2 again: TOPIC_PROPAGATING saying the brokers disagree; a wait that is under
     * way when broker 2 can catch up gets it.
     */
    @Test
    void aTopicTheLaggingBrokerDoesNotKnowIsPropagatingAndAWaitGetsItOnceTheBrokerCatchesUp() throws Exception {
        String topic = "lagging-propagation";
        KAFKA.cluster().controllerProxy(LAGGING).blackhole();
        createOnLeaders(topic);
        Map<String, Object> props = fastProps(KAFKA.cluster().proxiedBootstrapServers());
        props.put("max.block.ms", 1_000);
        try (KafkaMetadata metadata = KafkaMetadata.create(props)) {
            onlyReachable(0);
            metadata.awaitTopic(topic, MetadataClient.ANY_PARTITION, metadata.newDeadline(Duration.ofSeconds(30))); // seen on broker 0
            assertTrue(metadata.fetch().nodes().stream().anyMatch(n -> n.id() == LAGGING),
                    "broker 2 still listed (not fenced): " + metadata.fetch().nodes());

            onlyReachable(LAGGING);
            metadata.invalidate(topic, 0); // the next answer is broker 2's: it does not know the topic
            await().atMost(Duration.ofSeconds(30)).until(() -> metadata.fetch().topic(topic) == null);

            KafkaMetadataTimeoutException e = assertThrows(KafkaMetadataTimeoutException.class,
                    () -> metadata.awaitTopic(topic, MetadataClient.ANY_PARTITION, metadata.newSendDeadline()));
            Diagnosis d = e.diagnosis();
            report("broker 0 knows %s, lagging broker 2 does not: %s", topic, e.getMessage());
            assertEquals(Diagnosis.Cause.TOPIC_PROPAGATING, d.cause(), d.message());
            assertTrue(e.getMessage().contains("still propagating"), e.getMessage());

            onlyReachable(0); // broker 0 shows it again, broker 2 calls it unknown again: the brokers disagree
            metadata.awaitTopic(topic, MetadataClient.ANY_PARTITION, metadata.newDeadline(Duration.ofSeconds(30)));
            onlyReachable(LAGGING);
            metadata.invalidate(topic, 0);
            await().atMost(Duration.ofSeconds(30)).until(() -> metadata.fetch().topic(topic) == null);
            Diagnosis disagree = assertThrows(KafkaMetadataTimeoutException.class, () -> metadata.awaitTopic(topic,
                    MetadataClient.ANY_PARTITION, metadata.newSendDeadline())).diagnosis();
            report("broker 0 and lagging broker 2 in turn: %s", disagree.message());
            assertEquals(Diagnosis.Cause.TOPIC_PROPAGATING, disagree.cause(), disagree.message());
            assertTrue(disagree.seen().contains("the brokers disagree"), disagree.seen());

            Deadline deadline = metadata.newDeadline(Duration.ofSeconds(60));
            CompletableFuture<Cluster> wait = onNewThread("await-" + topic,
                    () -> metadata.awaitTopic(topic, MetadataClient.ANY_PARTITION, deadline));
            long answers = metadata.stats().responsesApplied();
            await().atMost(Duration.ofSeconds(30)).until(() -> metadata.stats().responsesApplied() > answers + 1
                    || wait.isDone());
            assertFalse(wait.isDone(), "broker 2 calls it unknown again and again; the wait goes on within its budget");

            long caughtUpAt = System.nanoTime();
            KAFKA.cluster().controllerProxy(LAGGING).pass(); // broker 2 catches up with the controller
            Cluster c = wait.get(60, TimeUnit.SECONDS);
            report("the wait on %s got it %d ms after the lagging broker could catch up, %d ms left of its budget",
                    topic, ItSupport.millisSince(caughtUpAt), deadline.remainingMs());
            assertEquals(2, c.partitionCount(topic));
        }
    }

    /**
     * Creates the topic with its two partitions on brokers 0 and 1, through an Admin that talks to brokers 0
     * and 1 (broker 2 could not forward the request to the controller), and waits until broker 0 describes it.
     */
    private static void createOnLeaders(String topic) throws Exception {
        onlyReachable(0);
        KAFKA.cluster().proxy(1).pass();
        Map<String, Object> p = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                KAFKA.cluster().proxy(0).address(), AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(0), 1, List.of(1))))).all()
                    .get(60, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> admin.describeTopics(List.of(topic))
                    .allTopicNames().get().get(topic).partitions().stream().allMatch(i -> i.leader() != null));
        }
    }
}
