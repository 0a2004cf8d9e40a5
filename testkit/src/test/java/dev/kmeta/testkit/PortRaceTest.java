package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A port taken between its pick and the bind, as another process could take it: the cluster starts on other ports
 * and serves; when every attempt finds its port taken, the failure names the ports. The KRaft controller's failed
 * bind is the hard case: Kafka does not throw it but halts, losing the cause.
 */
class PortRaceTest {

    private final Rival rival = new Rival();

    @AfterEach
    void releaseTakenPorts() {
        rival.close();
    }

    @Test
    void aControllerPortTakenBeforeItBindsIsReplacedAndTheClusterServes() throws Exception {
        rival.takeNext(KafkaCluster.CONTROLLER_LISTENER, 1);
        try (KafkaCluster kafka = KafkaCluster.builder().brokers(2).portPicker(rival).build().start()) {
            List<Integer> controllerPorts = rival.picked(KafkaCluster.CONTROLLER_LISTENER);
            assertEquals(2, controllerPorts.size(), "a second start, on a new controller port");
            assertNotEquals(controllerPorts.get(0), controllerPorts.get(1));
            assertServes(kafka, "after-controller-race", 2);
        }
    }

    @Test
    void aBrokerPortTakenBeforeItBindsIsReplacedAndTheClusterServes() throws Exception {
        rival.takeNext(KafkaCluster.INTERNAL_LISTENER, 1);
        try (KafkaCluster kafka = KafkaCluster.builder().brokers(1).portPicker(rival).build().start()) {
            assertEquals(2, rival.picked(KafkaCluster.INTERNAL_LISTENER).size(), "a second start, on new ports");
            assertServes(kafka, "after-broker-race", 1);
        }
    }

    @Test
    void aRestartFindingTheControllerPortTakenMovesToNewPorts() throws Exception {
        try (KafkaCluster kafka = KafkaCluster.builder().brokers(1).portPicker(rival).build().start()) {
            kafka.createTopic("before-restart", 1, 1);
            int controllerPort = rival.picked(KafkaCluster.CONTROLLER_LISTENER).get(0);
            int clientPort = kafka.brokerAddress(0).getPort();
            kafka.stopBroker(0);
            rival.take(controllerPort);

            kafka.startBroker(0);

            assertEquals(2, rival.picked(KafkaCluster.CONTROLLER_LISTENER).size(), "a new controller port");
            assertNotEquals(clientPort, kafka.brokerAddress(0).getPort(), "new ports for every listener");
            assertServes(kafka, "after-restart-race", 1);
            assertEquals(0, kafka.leader("before-restart", 0), "the topic made before the restart is back");
        }
    }

    @Test
    void whenEveryAttemptFindsItsControllerPortTakenTheFailureNamesThePorts() {
        rival.takeNext(KafkaCluster.CONTROLLER_LISTENER, Integer.MAX_VALUE);
        KafkaCluster kafka = KafkaCluster.builder().brokers(1).portPicker(rival).build();

        IllegalStateException failure = assertThrows(IllegalStateException.class, kafka::start);

        List<Integer> taken = rival.picked(KafkaCluster.CONTROLLER_LISTENER);
        assertEquals(KafkaCluster.START_ATTEMPTS, taken.size(), "one controller port per attempt");
        int last = taken.get(taken.size() - 1);
        assertTrue(failure.getMessage().contains("port " + last + " (CONTROLLER listener of node 0) was taken"),
                failure.getMessage());
        String trace = stackTrace(failure);
        for (int port : taken) {
            assertTrue(trace.contains("java.net.BindException: port " + port + " (CONTROLLER"),
                    "the failure names taken port " + port + ":\n" + trace);
        }
        assertFalse(failure.getMessage().contains("Exit.halt(1): null"), failure.getMessage());
    }

    @Test
    void aHaltWithNoPortTakenIsRetriedThenReportedAsSuch() {
        KafkaCluster kafka = KafkaCluster.builder().brokers(1).portPicker(rival)
                .controllerConfig("authorizer.class.name", "dev.kmeta.testkit.NoSuchAuthorizer").build();

        IllegalStateException failure = assertThrows(IllegalStateException.class, kafka::start);

        assertEquals(KafkaCluster.START_ATTEMPTS, rival.picked(KafkaCluster.CONTROLLER_LISTENER).size());
        assertTrue(failure.getMessage().contains("Kafka called Exit during its start, and none of its ports"),
                failure.getMessage());
        assertTrue(stackTrace(failure).contains("KafkaExit$Called: Kafka called Exit.halt(1) on thread"));
    }

    /** Creates a topic and describes it through an Admin client of its own, on the CLIENT listeners. */
    private static void assertServes(KafkaCluster kafka, String topic, int replicas) throws Exception {
        kafka.createTopic(topic, 2, replicas);
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(10, TimeUnit.SECONDS).get(topic);
            assertEquals(2, description.partitions().size());
            for (TopicPartitionInfo partition : description.partitions()) {
                assertEquals(replicas, partition.replicas().size());
                assertTrue(partition.leader() != null && !partition.leader().isEmpty(), "led: " + partition);
            }
        }
    }

    private static String stackTrace(Throwable failure) {
        StringWriter out = new StringWriter();
        failure.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    /**
     * Hands out {@link FreePorts}' ports and, like another process, takes (binds and listens on) the next ones
     * picked for one listener, so that the node's own bind fails. Remembers every port picked, by listener.
     */
    private static final class Rival implements KafkaCluster.PortPicker, AutoCloseable {
        private final List<String> listeners = new ArrayList<>();
        private final List<Integer> ports = new ArrayList<>();
        private final List<ServerSocket> held = new ArrayList<>();
        private String listenerToTake;
        private int toTake;

        synchronized void takeNext(String listener, int count) {
            listenerToTake = listener;
            toTake = count;
        }

        @Override
        public synchronized int pick(int nodeId, String listener) {
            int port = FreePorts.next();
            listeners.add(listener);
            ports.add(port);
            if (listener.equals(listenerToTake) && toTake > 0) {
                toTake--;
                take(port);
            }
            return port;
        }

        synchronized void take(int port) {
            try {
                held.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
            } catch (IOException e) {
                throw new UncheckedIOException("the rival cannot take port " + port, e);
            }
        }

        synchronized List<Integer> picked(String listener) {
            List<Integer> picked = new ArrayList<>();
            for (int i = 0; i < ports.size(); i++) {
                if (listeners.get(i).equals(listener)) {
                    picked.add(ports.get(i));
                }
            }
            return picked;
        }

        @Override
        public synchronized void close() {
            held.forEach(FaultProxy::closeQuietly);
            held.clear();
        }
    }
}
