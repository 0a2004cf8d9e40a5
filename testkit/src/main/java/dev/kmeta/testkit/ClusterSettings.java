package dev.kmeta.testkit;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;

/**
 * The settings of one {@link KafkaCluster}: an immutable copy of its {@link KafkaCluster.Builder}'s, read by
 * {@link ClusterNodes} and {@link BrokerConfigs}. Immutable and thread-safe (but for the builder's per-broker
 * overrides function and port picker, which it keeps as they are).
 */
final class ClusterSettings {
    final int brokers;
    final boolean autoCreateTopics;
    final boolean childProcesses;
    final boolean proxies;
    final java.util.Set<Integer> controllerProxies;
    final boolean authorizer;
    final String clientSecurityProtocol;
    final ClientSecurity clientSecurity;
    final Path storageRoot;
    final Duration startTimeout;
    final Map<String, String> brokerConfigs;
    final Map<String, String> controllerConfigs;
    final Map<Integer, InetSocketAddress> advertised;
    final Function<Integer, Map<String, String>> brokerOverrides;
    final KafkaCluster.PortPicker portPicker;
    final KafkaDistribution distribution;

    ClusterSettings(KafkaCluster.Builder b) {
        brokers = b.brokers;
        autoCreateTopics = b.autoCreateTopics;
        childProcesses = b.childProcesses;
        proxies = b.proxies;
        controllerProxies = java.util.Set.copyOf(b.controllerProxies);
        authorizer = b.authorizer;
        clientSecurityProtocol = b.clientSecurity != null
                ? b.clientSecurity.protocol() : b.clientSecurityProtocol;
        // null: a protocol configured by hand (clientSecurityProtocol + brokerConfig), unknown to the testkit
        clientSecurity = b.clientSecurity != null ? b.clientSecurity
                : "PLAINTEXT".equals(b.clientSecurityProtocol) ? ClientSecurity.plaintext() : null;
        storageRoot = b.storageRoot;
        startTimeout = b.startTimeout;
        brokerConfigs = Map.copyOf(b.brokerConfigs);
        controllerConfigs = Map.copyOf(b.controllerConfigs);
        advertised = Map.copyOf(b.advertised);
        brokerOverrides = b.brokerOverrides;
        portPicker = b.portPicker;
        distribution = b.distributionSet ? b.distribution : KafkaDistribution.fromDefaultProperty();
    }
}
