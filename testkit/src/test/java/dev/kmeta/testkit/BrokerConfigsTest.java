package dev.kmeta.testkit;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The nodes' {@code server.properties} as {@link BrokerConfigs} builds them, without starting any broker. */
class BrokerConfigsTest {
    private static final Path DIR = Path.of("target", "broker-configs-test");

    private static BrokerConfigs configs(KafkaCluster.Builder builder) {
        return new BrokerConfigs(new ClusterSettings(builder.distribution(null)));
    }

    private static KafkaNode node(int id, KafkaNode.Role role, int clientPort, int internalPort) {
        KafkaNode node = new InProcessNode(id, role, DIR.resolve("node-" + id));
        node.clientPort = clientPort;
        node.internalPort = internalPort;
        return node;
    }

    @Test
    void aCombinedNodeHasAllThreeListenersAndSingleNodeReplication() {
        Map<String, String> c = configs(KafkaCluster.builder())
                .of(node(0, KafkaNode.Role.COMBINED, 9100, 9101), 0, 9102, null);
        assertEquals("0", c.get("node.id"));
        assertEquals("broker,controller", c.get("process.roles"));
        assertEquals("0@127.0.0.1:9102", c.get("controller.quorum.voters"));
        assertEquals("CLIENT://127.0.0.1:9100,INTERNAL://127.0.0.1:9101,CONTROLLER://127.0.0.1:9102",
                c.get("listeners"));
        assertEquals("CLIENT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
                c.get("listener.security.protocol.map"));
        assertEquals("INTERNAL", c.get("inter.broker.listener.name"));
        assertEquals("1", c.get("offsets.topic.replication.factor"));
        assertEquals("1", c.get("transaction.state.log.min.isr"));
        assertEquals("false", c.get("auto.create.topics.enable"));
        assertEquals(DIR.resolve("node-0").resolve("data").toString(), c.get("log.dirs"));
        assertNull(c.get("advertised.listeners"), "its own address");
        assertNull(c.get("authorizer.class.name"));
    }

    @Test
    void splitModeBrokersReplicateThreeWaysAndTheControllerGetsNoBrokerSettings() {
        BrokerConfigs configs = configs(KafkaCluster.builder().brokers(3).autoCreateTopics(true)
                .controllerConfig("controller.only", "c"));
        Map<String, String> broker = configs.of(node(2, KafkaNode.Role.BROKER, 9200, 9201), 3000, 9300, null);
        assertEquals("broker", broker.get("process.roles"));
        assertEquals("3000@127.0.0.1:9300", broker.get("controller.quorum.voters"));
        assertEquals("CLIENT://127.0.0.1:9200,INTERNAL://127.0.0.1:9201", broker.get("listeners"));
        assertEquals("3", broker.get("offsets.topic.replication.factor"));
        assertEquals("2", broker.get("share.coordinator.state.topic.min.isr"));
        assertEquals("true", broker.get("auto.create.topics.enable"));
        assertFalse(broker.containsKey("controller.only"));

        Map<String, String> controller = configs.of(node(3000, KafkaNode.Role.CONTROLLER, 0, 0), 3000, 9300, null);
        assertEquals("controller", controller.get("process.roles"));
        assertEquals("CONTROLLER://127.0.0.1:9300", controller.get("listeners"));
        assertEquals("c", controller.get("controller.only"));
        assertFalse(controller.containsKey("offsets.topic.replication.factor"));
        assertFalse(controller.containsKey("inter.broker.listener.name"));
    }

    @Test
    void brokerConfigsOverrideTheDefaultsAndPerBrokerOverridesComeLast() {
        BrokerConfigs configs = configs(KafkaCluster.builder().brokers(2)
                .brokerConfig("num.io.threads", "8")
                .brokerConfig("log.retention.ms", "1000")
                .brokerConfigOverrides(id -> id == 1 ? Map.of("log.retention.ms", "2000") : Map.of()));
        Map<String, String> b0 = configs.of(node(0, KafkaNode.Role.BROKER, 1, 2), 3000, 3, null);
        Map<String, String> b1 = configs.of(node(1, KafkaNode.Role.BROKER, 4, 5), 3000, 3, null);
        assertEquals("8", b0.get("num.io.threads"));
        assertEquals("1000", b0.get("log.retention.ms"));
        assertEquals("2000", b1.get("log.retention.ms"));
    }

    @Test
    void anAdvertisedClientAddressKeepsTheInternalListenerOnItsOwnPort() {
        Map<String, String> c = configs(KafkaCluster.builder())
                .of(node(0, KafkaNode.Role.COMBINED, 9100, 9101), 0, 9102, "127.0.0.1:7000");
        assertEquals("CLIENT://127.0.0.1:7000,INTERNAL://127.0.0.1:9101", c.get("advertised.listeners"));
    }

    @Test
    void theAuthorizerMakesTheInternalPrincipalTheOnlySuperUserOnEveryNode() {
        BrokerConfigs configs = configs(KafkaCluster.builder().brokers(2).withAuthorizer());
        for (KafkaNode node : new KafkaNode[] {node(0, KafkaNode.Role.BROKER, 1, 2),
            node(3000, KafkaNode.Role.CONTROLLER, 0, 0)}) {
            Map<String, String> c = configs.of(node, 3000, 3, null);
            assertEquals(KafkaCluster.STANDARD_AUTHORIZER, c.get("authorizer.class.name"), node.role.name());
            assertEquals(KafkaCluster.INTERNAL_PRINCIPAL, c.get("super.users"));
            assertEquals("false", c.get("allow.everyone.if.no.acl.found"));
        }
    }

    @Test
    void aSecuredClientListenerGetsItsProtocolAndSecurityConfigsOnBrokersOnly() {
        ClientSecurity sasl = ClientSecurity.saslPlaintext();
        BrokerConfigs configs = configs(KafkaCluster.builder().brokers(2).clientSecurity(sasl));
        Map<String, String> broker = configs.of(node(0, KafkaNode.Role.BROKER, 1, 2), 3000, 3, null);
        assertEquals("CLIENT:SASL_PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
                broker.get("listener.security.protocol.map"));
        assertTrue(broker.entrySet().containsAll(sasl.brokerConfigs().entrySet()), broker.toString());
        Map<String, String> controller = configs.of(node(3000, KafkaNode.Role.CONTROLLER, 0, 0), 3000, 3, null);
        assertFalse(controller.keySet().containsAll(sasl.brokerConfigs().keySet()), controller.toString());
    }
}
