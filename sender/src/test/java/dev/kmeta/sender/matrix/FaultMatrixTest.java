package dev.kmeta.sender.matrix;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.sender.HostResolverHook;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.kmeta.sender.matrix.Matrix.clientPorts;
import static dev.kmeta.sender.matrix.Matrix.inBackground;
import static dev.kmeta.sender.matrix.Matrix.loopbackOnly;
import static dev.kmeta.sender.matrix.Matrix.proxies;
import static dev.kmeta.sender.matrix.Matrix.targets;
import static dev.kmeta.sender.matrix.MatrixRun.hold;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault matrix of issue 8 on one shared cluster: three in-process brokers and a controller, a FaultProxy in
 * front of each broker (the brokers advertise their proxies, so every byte of the clients passes one). Each test is
 * one fault; while it is on, application threads keep calling {@code awaitTopic} with short budgets on two clients,
 * one of which is closed during the fault. {@link MatrixRun} says what is asserted of each.
 * Faults are undone before each test (proxies forward again, stopped brokers start).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FaultMatrixTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(3).withProxies());

    @BeforeEach
    void healthyCluster() {
        Matrix.heal(KAFKA.cluster());
    }

    private static MatrixRun run(String name, List<Load.Target> targets) {
        KafkaCluster c = KAFKA.cluster();
        return MatrixRun.start(name, MatrixRun.props(c.proxiedBootstrapServers()), loopbackOnly(), proxies(c),
                clientPorts(c, true), targets);
    }

    private static void everyProxy(java.util.function.Consumer<FaultProxy> fault) {
        proxies(KAFKA.cluster()).forEach(fault);
    }

    @Test
    void brokerStoppedCleanly() {
        KafkaCluster c = KAFKA.cluster();
        c.createTopic("stopped", 3, 3);
        try (MatrixRun run = run("stopped", targets("stopped", 3))) {
            run.awaitReady("stopped");
            int victim = c.leader("stopped", 0);
            c.stopBroker(victim);
            run.closeCloser();
            // The fault's end state is a cluster of two: leaders moved away, the broker left the broker set. stopBroker
            // returns before the other brokers say so (with brokers in child JVMs, Admin still listed the stopped
            // broker as it returned), and a client agreeing with that Admin view is no convergence on the end state:
            // wait until Admin shows it, then for the client to agree.
            awaitAdminSees(c, "the broker stopped cleanly", () -> !Convergence.adminBrokers(c).contains(victim)
                    && Convergence.describe(c, "stopped").partitions().stream()
                            .allMatch(p -> p.leader() != null && !p.leader().isEmpty() && p.leader().id() != victim));
            run.converge(c, List.of("stopped"));
            assertNull(run.survivor().fetch().node(victim));
            run.finish();
        }
    }

    @Test
    void brokerRestarted() throws Exception {
        KafkaCluster c = KAFKA.cluster();
        c.createTopic("restarted", 3, 3);
        try (MatrixRun run = run("restarted", targets("restarted", 3))) {
            run.awaitReady("restarted");
            int victim = c.leader("restarted", 0);
            CompletableFuture<Void> restart = inBackground("restart", () -> c.restartBroker(victim));
            await().atMost(Duration.ofSeconds(30)).until(() -> !c.runningBrokerIds().contains(victim)
                    || restart.isDone());
            run.closeCloser();
            restart.get(60, TimeUnit.SECONDS);
            run.converge(c, List.of("restarted"));
            assertNotNull(run.survivor().fetch().node(victim), "the restarted broker is back in the broker set");
            run.finish();
        }
    }

    @Test
    void controllerRestarted() throws Exception {
        KafkaCluster c = KAFKA.cluster();
        c.createTopic("controller", 3, 3);
        try (MatrixRun run = run("controller", targets("controller", 3))) {
            run.awaitReady("controller");
            CompletableFuture<Void> restart = inBackground("restart-controller", c::restartController);
            hold(500); // the controller is down, or coming back: the brokers serve what they have
            run.closeCloser();
            restart.get(60, TimeUnit.SECONDS);
            // A change that needs the controller gets through to the client once it is back.
            c.createTopic("controller-after", 2, 3);
            assertEquals(2, run.send("controller-after", -1, 15_000).get(20, TimeUnit.SECONDS)
                    .partitionCount("controller-after"));
            run.converge(c, List.of("controller", "controller-after"));
            run.finish();
        }
    }

    @Test
    void oneBrokerBlackholedThenRestored() {
        KafkaCluster c = KAFKA.cluster();
        c.createTopic("dark-one", 3, 3);
        try (MatrixRun run = run("dark-one", targets("dark-one", 3))) {
            run.awaitReady("dark-one");
            int victim = c.leader("dark-one", 0);
            long answered = run.survivorLoad().answers();
            long failed = run.survivorFailures();
            c.proxy(victim).blackhole();
            // Until a request met the dark broker and timed out (request.timeout.ms = 1 s) while the load went on
            // getting answers, or 2.5 s (the fixed length this fault had), whichever comes first.
            run.holdUntil(2_500, () -> run.survivorFailures() > failed && run.survivorLoad().answers() > answered);
            assertTrue(run.survivorLoad().answers() > answered, "what is known stays usable during the fault");
            run.closeCloser();
            c.proxy(victim).pass();
            run.converge(c, List.of("dark-one"));
            run.finish();
        }
    }

    @Test
    void allBrokersBlackholedThenRestored() throws Exception {
        KafkaCluster c = KAFKA.cluster();
        c.createTopic("dark-all", 2, 3);
        try (MatrixRun run = run("dark-all", targets("dark-all", 2))) {
            run.awaitReady("dark-all");
            long failed = run.survivorFailures();
            everyProxy(FaultProxy::blackhole);
            c.createTopic("dark-all-new", 1, 3); // on the INTERNAL listeners: only the clients' path is dark
            CompletableFuture<Cluster> send = run.send("dark-all-new", -1, 40_000);
            run.awaitFaultSeen(failed); // a request or a connection lost in the dark
            run.closeCloser();
            everyProxy(FaultProxy::pass);
            assertEquals(1, send.get(30, TimeUnit.SECONDS).partitionCount("dark-all-new"),
                    "the send waiting through the fault got its answer");
            run.converge(c, List.of("dark-all", "dark-all-new"));
            run.finish();
        }
    }

    @Test
    void connectionsResetMidResponse() {
        KafkaCluster c = KAFKA.cluster();
        c.createTopic("reset", 3, 3);
        try (MatrixRun run = run("reset", targets("reset", 3))) {
            run.awaitReady("reset");
            everyProxy(p -> p.latencyMs(200)); // each answer spends a while on the wire: the resets meet them there
            long failed = run.survivor().stats().requestsFailed();
            // Four rounds (each ~1 s: a reset, the reconnect, the next request in flight); the closer is closed
            // between the second and the third, so resets meet it before its close and the survivor after.
            for (int round = 0; round < 4; round++) {
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                        .until(() -> run.survivor().state() == RefreshState.IN_FLIGHT);
                hold(150);
                everyProxy(FaultProxy::resetAll);
                if (round == 1) {
                    run.closeCloser();
                }
            }
            assertTrue(run.survivor().stats().requestsFailed() > failed, "requests were cut mid-way");
            everyProxy(p -> p.latencyMs(0));
            run.converge(c, List.of("reset"));
            run.finish();
        }
    }

    @Test
    void latencyBeyondRequestTimeout() {
        KafkaCluster c = KAFKA.cluster();
        c.createTopic("slow", 3, 3);
        try (MatrixRun run = run("slow", targets("slow", 3))) {
            run.awaitReady("slow");
            long failed = run.survivorFailures();
            everyProxy(p -> p.latencyMs(1_500)); // request.timeout.ms is 1 s
            run.awaitFaultSeen(failed); // a request or a connection setup timed out
            hold(1_000); // and the load goes on waiting through slow answers a while longer
            run.closeCloser();
            everyProxy(p -> p.latencyMs(0));
            run.converge(c, List.of("slow"));
            run.finish();
        }
    }

    @Test
    void bootstrapNameStopsResolvingThenResolvesAgain() throws Exception {
        KafkaCluster c = KAFKA.cluster();
        c.createTopic("dns", 2, 3);
        AtomicBoolean resolves = new AtomicBoolean(true);
        HostResolverHook dns = host -> {
            if (host.endsWith(".matrix.test")) {
                if (!resolves.get()) {
                    throw new UnknownHostException(host + " (the fake DNS is down)");
                }
                return new InetAddress[] {InetAddress.getByAddress(host, Matrix.LOOPBACK)};
            }
            return loopbackOnly().resolve(host);
        };
        // The bootstrap names lead to the brokers' own CLIENT listeners; the brokers advertise their proxies.
        List<String> names = new ArrayList<>();
        for (int id : c.brokerIds()) {
            names.add("kafka-" + id + ".matrix.test:" + c.brokerAddress(id).getPort());
        }
        Map<String, Object> props = MatrixRun.props(String.join(",", names));
        try (MatrixRun run = MatrixRun.start("dns", props, dns, proxies(c), clientPorts(c, true),
                targets("dns", 2))) {
            run.awaitReady("dns");
            // The names stop resolving, and the learned brokers go dark: the client can only go back to the names.
            resolves.set(false);
            everyProxy(FaultProxy::blackhole);
            c.createTopic("dns-new", 1, 3);
            CompletableFuture<Cluster> send = run.send("dns-new", -1, 40_000);
            await().atMost(Duration.ofSeconds(20)).until(() -> run.survivor().evidence().records().stream()
                    .anyMatch(r -> r.isBootstrap() && r.lastProblem() == ConnectionEvidence.Problem.DNS));
            run.closeCloser();
            resolves.set(true);
            // Through the names again, while every learned broker is still dark.
            assertEquals(1, send.get(30, TimeUnit.SECONDS).partitionCount("dns-new"));
            assertTrue(run.survivor().stats().rebootstraps() >= 1, "rebootstraps: " + run.survivor().stats().rebootstraps());
            everyProxy(FaultProxy::pass);
            run.converge(c, List.of("dns", "dns-new"));
            run.finish();
        }
    }

    @Test
    void rebootstrapToANewBrokerSetOfTheSameCluster() throws Exception {
        KafkaCluster c = KAFKA.cluster();
        c.createTopic("moved", 3, 3);
        // The bootstrap addresses: two proxies in front of brokers 0 and 1; later, of brokers 1 and 2.
        try (FaultProxy boot0 = FaultProxy.to(c.brokerAddress(0));
             FaultProxy boot1 = FaultProxy.to(c.brokerAddress(1))) {
            List<FaultProxy> all = new ArrayList<>(proxies(c));
            all.add(boot0);
            all.add(boot1);
            List<Integer> ports = new ArrayList<>(clientPorts(c, true));
            ports.add(boot0.port());
            ports.add(boot1.port());
            Map<String, Object> props = MatrixRun.props(boot0.address() + "," + boot1.address());
            try (MatrixRun run = MatrixRun.start("moved", props, loopbackOnly(), all, ports, targets("moved", 3))) {
                run.awaitReady("moved");
                String clusterId = run.survivor().fetch().clusterId();
                everyProxy(FaultProxy::blackhole); // the learned addresses are gone
                boot0.retarget("127.0.0.1", c.brokerAddress(1).getPort()).resetAll();
                boot1.retarget("127.0.0.1", c.brokerAddress(2).getPort()).resetAll();
                long viaBootstrap = boot0.requestCount(MatrixRun.METADATA) + boot1.requestCount(MatrixRun.METADATA);
                c.createTopic("moved-new", 2, 3);
                assertEquals(2, run.send("moved-new", -1, 30_000).get(40, TimeUnit.SECONDS)
                        .partitionCount("moved-new"), "found through the moved bootstrap addresses");
                run.closeCloser();
                assertTrue(run.survivor().stats().rebootstraps() >= 1, "rebootstraps: " + run.survivor().stats().rebootstraps());
                assertTrue(boot0.requestCount(MatrixRun.METADATA) + boot1.requestCount(MatrixRun.METADATA)
                        > viaBootstrap, "the answers came through the bootstrap addresses");
                assertEquals(clusterId, run.survivor().fetch().clusterId());
                assertEquals(0, run.survivor().stats().clusterIdChanges());
                assertNotNull(run.survivor().fetch().topic("moved"), "topics are kept across a rebootstrap");
                everyProxy(FaultProxy::pass);
                run.converge(c, List.of("moved", "moved-new"));
                run.finish();
            }
        }
    }

    @Test
    void topicRecreatedWithAnotherIdAndFewerPartitions() {
        KafkaCluster c = KAFKA.cluster();
        c.createTopic("recreated", 3, 3);
        try (MatrixRun run = run("recreated", targets("recreated", 3))) {
            run.awaitReady("recreated");
            int leader = moveLeadership(c, "recreated", 0);
            await().atMost(Duration.ofSeconds(20)).until(
                    () -> run.survivor().fetch().partition("recreated", 0).leaderId() == leader);
            int epoch = run.survivor().fetch().partition("recreated", 0).leaderEpoch();
            assertTrue(epoch > 0, "the leadership move raised the epoch: " + epoch);
            UUID oldId = run.survivor().fetch().topicId("recreated");
            // The clients see nothing of the deletion: they next hear of the topic under its new id.
            everyProxy(FaultProxy::blackhole);
            c.deleteTopic("recreated");
            run.closeCloser();
            c.createTopic("recreated", 1, 3);
            everyProxy(FaultProxy::pass);
            run.converge(c, List.of("recreated"));
            TopicMetadata now = run.survivor().fetch().topic("recreated");
            assertNotEquals(oldId, now.topicId());
            assertEquals(1, now.partitionCount(), "the count follows the new topic");
            assertTrue(now.partition(0).leaderEpoch() < epoch, "epochs restart with the new topic: " + now);
            run.finish();
        }
    }

    /** Waits (bounded) until the cluster's own Admin shows the end state of a fault. */
    private static void awaitAdminSees(KafkaCluster c, String what, java.util.concurrent.Callable<Boolean> endState) {
        try {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(endState);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("Admin never showed the end state of the fault (" + what + "): brokers "
                    + c.runningBrokerIds() + " running", e);
        }
    }

    /**
     * Moves a partition's leadership to another replica (replicas reordered, then the preferred leader elected) and
     * returns the new leader, once Admin sees it lead: its leader epoch is now above the topic's first (0).
     */
    private static int moveLeadership(KafkaCluster c, String topic, int partition) {
        TopicPartition tp = new TopicPartition(topic, partition);
        try {
            List<Integer> replicas = new ArrayList<>();
            Convergence.describe(c, topic).partitions().get(partition).replicas().forEach(n -> replicas.add(n.id()));
            replicas.add(replicas.remove(0));
            c.admin().alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(replicas))))
                    .all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                try {
                    c.admin().electLeaders(ElectionType.PREFERRED, Set.of(tp)).all().get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException notYet) {
                    // not the preferred replica's turn yet, or already elected (ELECTION_NOT_NEEDED)
                }
                return c.leader(topic, partition) == replicas.get(0);
            });
            return replicas.get(0);
        } catch (Exception e) {
            throw new AssertionError("moving the leadership of " + tp + " failed", e);
        }
    }

    @Test
    void partitionsAddedWhileSendsWaitForTheNewIndex() throws Exception {
        KafkaCluster c = KAFKA.cluster();
        c.createTopic("grown", 2, 3);
        List<Load.Target> targets = targets("grown", 2);
        targets.add(Load.Target.partition("grown", 3));
        try (MatrixRun run = run("grown", targets)) {
            run.awaitReady("grown");
            CompletableFuture<Cluster> send = run.send("grown", 3, 30_000);
            hold(1_000); // the sends wait for indexes 2 and 3, each asking for a refresh; (d) bounds what that costs
            run.closeCloser();
            c.addPartitions("grown", 4);
            Cluster answer = send.get(30, TimeUnit.SECONDS);
            assertEquals(4, answer.partitionCount("grown"));
            assertNotNull(answer.leader("grown", 3), "the send returns once the new partition has a leader");
            assertTrue(run.survivorLoad().timeouts("grown", Diagnosis.Cause.PARTITION_OUT_OF_RANGE) > 0,
                    "the waits that timed out said why: " + run.survivorLoad().causes());
            run.converge(c, List.of("grown"));
            run.finish();
        }
    }
}
