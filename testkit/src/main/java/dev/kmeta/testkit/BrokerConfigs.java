package dev.kmeta.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.kmeta.testkit.KafkaCluster.CLIENT_LISTENER;
import static dev.kmeta.testkit.KafkaCluster.CONTROLLER_LISTENER;
import static dev.kmeta.testkit.KafkaCluster.HOST;
import static dev.kmeta.testkit.KafkaCluster.INTERNAL_LISTENER;
import static dev.kmeta.testkit.KafkaCluster.INTERNAL_PRINCIPAL;
import static dev.kmeta.testkit.KafkaCluster.STANDARD_AUTHORIZER;

/**
 * The {@code server.properties} of each node of a {@link KafkaCluster}: KRaft roles and quorum, the three listeners
 * (CLIENT, INTERNAL, CONTROLLER) on the node's chosen ports, the testkit's small-cluster defaults, the authorizer,
 * the CLIENT listener's security, then the builder's broker and controller configs and per-broker overrides, in that
 * order (a later one wins). Pure: it builds maps and starts nothing, so it is unit-tested without a broker.
 *
 * <p>Immutable and thread-safe (the settings are; the per-broker overrides function is the builder's).
 */
final class BrokerConfigs {
    private final ClusterSettings settings;

    BrokerConfigs(ClusterSettings settings) {
        this.settings = settings;
    }

    /**
     * The configuration of one node.
     *
     * @param controllerId     the node id of the KRaft controller (the combined node's, in single-node mode)
     * @param controllerPort   the controller's CONTROLLER port, named in {@code controller.quorum.voters}
     * @param advertisedClient {@code host:port} the CLIENT listener advertises (a proxy's, or one the builder set),
     *                         or null for its own address
     */
    Map<String, String> of(KafkaNode node, int controllerId, int controllerPort, String advertisedClient) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("node.id", Integer.toString(node.id));
        config.put("process.roles", node.role.processRoles);
        config.put("controller.quorum.voters", controllerId + "@" + HOST + ":" + controllerPort);
        config.put("controller.listener.names", CONTROLLER_LISTENER);
        config.put("listener.security.protocol.map", CLIENT_LISTENER + ":" + settings.clientSecurityProtocol + ","
                + INTERNAL_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        config.put("log.dirs", node.dir.resolve("data").toString());
        config.put("broker.session.timeout.ms", "2000");
        config.put("broker.heartbeat.interval.ms", "200");
        config.put("listeners", listeners(node, controllerPort));
        if (settings.authorizer) {
            config.put("authorizer.class.name", STANDARD_AUTHORIZER);
            config.put("super.users", INTERNAL_PRINCIPAL);
            config.put("allow.everyone.if.no.acl.found", "false");
        }
        if (node.role.isBroker()) {
            brokerDefaults(node, advertisedClient, config);
            if (settings.clientSecurity != null) {
                config.putAll(settings.clientSecurity.brokerConfigs());
            }
            config.putAll(settings.brokerConfigs);
            config.putAll(settings.brokerOverrides.apply(node.id));
        }
        if (!node.role.isBroker() || node.role == KafkaNode.Role.COMBINED) {
            config.putAll(settings.controllerConfigs);
        }
        return config;
    }

    private static String listeners(KafkaNode node, int controllerPort) {
        List<String> listeners = new ArrayList<>();
        if (node.role.isBroker()) {
            listeners.add(CLIENT_LISTENER + "://" + HOST + ":" + node.clientPort);
            listeners.add(INTERNAL_LISTENER + "://" + HOST + ":" + node.internalPort);
        }
        if (node.role != KafkaNode.Role.BROKER) {
            listeners.add(CONTROLLER_LISTENER + "://" + HOST + ":" + controllerPort);
        }
        return String.join(",", listeners);
    }

    private void brokerDefaults(KafkaNode node, String advertisedClient, Map<String, String> config) {
        String rf = Integer.toString(Math.min(3, settings.brokers));
        String minIsr = Integer.toString(Math.min(2, Math.min(3, settings.brokers)));
        config.put("inter.broker.listener.name", INTERNAL_LISTENER);
        if (advertisedClient != null) {
            config.put("advertised.listeners", CLIENT_LISTENER + "://" + advertisedClient + ","
                    + INTERNAL_LISTENER + "://" + HOST + ":" + node.internalPort);
        }
        config.put("auto.create.topics.enable", Boolean.toString(settings.autoCreateTopics));
        config.put("offsets.topic.replication.factor", rf);
        config.put("offsets.topic.num.partitions", "5");
        config.put("transaction.state.log.replication.factor", rf);
        config.put("transaction.state.log.min.isr", minIsr);
        config.put("transaction.state.log.num.partitions", "5");
        config.put("share.coordinator.state.topic.replication.factor", rf);
        config.put("share.coordinator.state.topic.min.isr", minIsr);
        config.put("share.coordinator.state.topic.num.partitions", "5");
        config.put("group.initial.rebalance.delay.ms", "0");
        config.put("log.cleaner.dedupe.buffer.size", "2097152");
        config.put("num.network.threads", "2");
        config.put("num.io.threads", "4");
        config.put("background.threads", "4");
        config.put("num.recovery.threads.per.data.dir", "1");
    }
}
