package dev.kmeta.sender.matrix;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.sender.matrix.Matrix.clientPorts;
import static dev.kmeta.sender.matrix.Matrix.loopbackOnly;
import static dev.kmeta.sender.matrix.Matrix.proxies;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scenarios of the fault matrix that need more than the shared in-process cluster: a broker killed hard (the
 * brokers of cluster A run in child JVMs, behind FaultProxies) and a bootstrap that starts leading to another cluster
 * (B, one in-process broker). The kill runs last: nothing restarts the killed broker.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OtherClustersMatrixTest {
    @RegisterExtension
    static final KafkaClusterExtension A = KafkaClusterExtension.of(KafkaCluster.builder().brokers(3)
            .childProcesses(true).withProxies().startTimeout(Duration.ofSeconds(120)));
    @RegisterExtension
    static final KafkaClusterExtension B = KafkaClusterExtension.brokers(1);

    @BeforeEach
    void healthyCluster() {
        Matrix.heal(A.cluster());
    }

    private static List<Integer> everyClientPort() {
        List<Integer> ports = new ArrayList<>(clientPorts(A.cluster(), true));
        ports.addAll(clientPorts(B.cluster(), false));
        return ports;
    }

    @Test
    @Order(1)
    void bootstrapNowLeadsToAnotherCluster() {
        KafkaCluster a = A.cluster();
        KafkaCluster b = B.cluster();
        a.createTopic("shared", 3, 3);
        a.createTopic("a-only", 2, 3);
        b.createTopic("shared", 1, 1);
        int bPort = b.brokerAddress(b.brokerIds().get(0)).getPort();
        List<Load.Target> targets = List.of(Load.Target.topic("shared"), Load.Target.partition("shared", 0),
                Load.Target.partition("shared", 2), Load.Target.topic("a-only"));
        Map<String, Object> props = MatrixRun.props(a.proxiedBootstrapServers());
        // The move is found by the brokers' cluster check (REBOOTSTRAP_REQUIRED), not by the trigger: a 2 s trigger
        // firing again while the first bootstrap attempt is still under way on a loaded machine would cut it.
        props.put("metadata.recovery.rebootstrap.trigger.ms", 10_000);
        try (MatrixRun run = MatrixRun.start("other-cluster", props, loopbackOnly(), proxies(a), everyClientPort(),
                targets)) {
            run.awaitReady("shared");
            run.awaitReady("a-only");
            UUID aShared = run.survivor().fetch().topicId("shared");
            Set<Integer> aPorts = Set.copyOf(clientPorts(a, true));

            // Every address the client knows now leads to cluster B (a DNS or load balancer change).
            for (int id : a.brokerIds()) {
                a.proxy(id).retarget("127.0.0.1", bPort).resetAll();
            }
            List<String> mixed = new ArrayList<>();
            try {
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(5)).until(() -> {
                    Cluster now = run.survivor().fetch();
                    if (b.clusterId().equals(now.clusterId())) {
                        mixed.addAll(mixing(now, aShared, aPorts));
                        return true;
                    }
                    return false;
                });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("the survivor never reached cluster B: state " + run.survivor().state()
                        + ", sent " + run.survivor().stats().requestsSent() + ", failed "
                        + run.survivor().stats().requestsFailed() + ", applied "
                        + run.survivor().stats().responsesApplied() + ", rebootstraps "
                        + run.survivor().stats().rebootstraps() + ", evidence " + run.survivor().evidence().records()
                        + "; the closer: " + run.closer().fetch().clusterId(), e);
            }
            assertEquals(List.of(), mixed, "a snapshot of cluster B held metadata of cluster A");
            run.closeCloser();
            run.converge(b, List.of("shared", "a-only"), id -> bPort);
            assertTrue(run.survivor().stats().clusterIdChanges() >= 1, "counted");
            await().atMost(Duration.ofSeconds(10)).until(
                    () -> run.survivorLoad().timeouts("a-only", Diagnosis.Cause.CLUSTER_ID_CHANGED) > 0);
            run.finish();
        }
    }

    /** What of cluster A a snapshot with B's cluster id still holds. */
    private static List<String> mixing(Cluster snapshot, UUID aShared, Set<Integer> aPorts) {
        List<String> mixed = new ArrayList<>();
        TopicMetadata shared = snapshot.topic("shared");
        if (shared != null && aShared.equals(shared.topicId())) {
            mixed.add("topic shared of A: " + shared);
        }
        if (snapshot.topic("a-only") != null) {
            mixed.add("topic a-only of A");
        }
        for (Node n : snapshot.nodes()) {
            if (aPorts.contains(n.port())) {
                mixed.add("a broker of A: " + n);
            }
        }
        return mixed;
    }

    @Test
    @Order(2)
    void brokerKilledHard() {
        KafkaCluster a = A.cluster();
        a.createTopic("killed", 3, 3);
        try (MatrixRun run = MatrixRun.start("killed", MatrixRun.props(a.proxiedBootstrapServers()), loopbackOnly(),
                proxies(a), everyClientPort(), Matrix.targets("killed", 3))) {
            run.awaitReady("killed");
            int victim = a.leader("killed", 0);
            a.killBroker(victim); // kill -9: no controlled shutdown, its connections die with it
            run.closeCloser();
            // The controller fences it after broker.session.timeout.ms (2 s) and moves its leaderships: that is
            // the end of the fault, as Admin sees it; the client follows.
            await().atMost(Duration.ofSeconds(30)).until(() -> !Convergence.adminBrokers(a).contains(victim));
            run.converge(a, List.of("killed"));
            assertNull(run.survivor().fetch().node(victim));
            run.finish();
        }
    }
}
