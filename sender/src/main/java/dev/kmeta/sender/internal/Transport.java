package dev.kmeta.sender.internal;

import dev.kmeta.metadata.MetadataConfig;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ClientDnsLookup;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.HostResolver;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The wire: a kafka-clients {@link NetworkClient} built from the user's producer properties the way kafka-clients
 * builds its own (channel builder for PLAINTEXT / SSL / SASL_PLAINTEXT / SASL_SSL, selector, ApiVersions
 * negotiation), with kmeta's {@link NodeProvider} as its metadata updater and kmeta's resolver for DNS.
 *
 * <p>Stateless factory; the client it builds is then used by the sender thread alone.
 */
@SuppressKafkaInternalApiUsage("builds kmeta's own NetworkClient (ClientUtils, ClientDnsLookup, ApiVersions) from "
        + "the producer-style configuration")
final class Transport {
    private Transport() {
    }

    /**
     * A NetworkClient for kmeta's own thread, with {@code nodes} as its metadata updater and {@code apiVersions}
     * (a {@link HandshakeTracker}) for what it learns of each broker's versions.
     *
     * @throws dev.kmeta.metadata.ConfigException if kafka-clients cannot build its channels on the security
     *                                            settings (the message names the key, and the file for a store)
     */
    static NetworkClient networkClient(MetadataConfig config, NodeProvider nodes, HostResolver resolver,
                                       ApiVersions apiVersions, Metrics metrics, Time time) {
        ChannelSettings.checkStoreFiles(config);
        try {
            return KafkaClientsCompat.createNetworkClient(kafkaConfig(config), config.requireBootstrapServers(),
                    config.clientId(), metrics, "kmeta-metadata", "[kmeta " + config.clientId() + "] ",
                    apiVersions, time, 1, config.requestTimeoutMs(), nodes, resolver);
        } catch (KafkaException e) {
            throw ChannelSettings.explain(config, e);
        }
    }

    /** Bootstrap nodes (ids -1, -2, ...), names unresolved: resolved at each connection attempt. */
    static List<Node> bootstrapNodes(MetadataConfig config) {
        List<String> servers = config.requireBootstrapServers();
        List<Node> out = new ArrayList<>();
        if (config.clientDnsLookup() == MetadataConfig.DnsLookup.RESOLVE_CANONICAL_BOOTSTRAP_SERVERS_ONLY) {
            for (InetSocketAddress a : ClientUtils.parseAndValidateAddresses(servers,
                    ClientDnsLookup.RESOLVE_CANONICAL_BOOTSTRAP_SERVERS_ONLY)) {
                out.add(new Node(-1 - out.size(), a.getHostString(), a.getPort()));
            }
            return out;
        }
        for (String s : servers) {
            out.add(new Node(-1 - out.size(), Utils.getHost(s), Utils.getPort(s)));
        }
        return out;
    }

    /** The user's properties as kafka-clients reads them, with kmeta's validated values for the keys it owns. */
    private static AdminClientConfig kafkaConfig(MetadataConfig config) {
        Map<String, Object> m = new HashMap<>();
        config.originals().forEach((k, v) -> {
            if (!k.startsWith(MetadataConfig.KMETA_PREFIX) && v != null) {
                m.put(k, v);
            }
        });
        m.put("bootstrap.servers", String.join(",", config.requireBootstrapServers()));
        m.put("client.id", config.clientId());
        // kmeta resolves the bootstrap names itself, at each connection attempt (bootstrap.resolve.timeout.ms is
        // kmeta's bound: BootstrapResolutionWatch), so kafka-clients 4.4 must not resolve them on a thread of its own.
        m.put("bootstrap.resolve.timeout.ms", 0L);
        m.put("metadata.cluster.check.enable", config.metadataClusterCheckEnable());
        m.put("reconnect.backoff.ms", config.reconnectBackoffMs());
        m.put("reconnect.backoff.max.ms", config.reconnectBackoffMaxMs());
        m.put("socket.connection.setup.timeout.ms", config.socketConnectionSetupTimeoutMs());
        m.put("socket.connection.setup.timeout.max.ms", config.socketConnectionSetupTimeoutMaxMs());
        m.put("request.timeout.ms", config.requestTimeoutMs());
        m.put("metadata.recovery.strategy", config.metadataRecoveryStrategy().configValue());
        m.put("metadata.recovery.rebootstrap.trigger.ms", config.metadataRecoveryRebootstrapTriggerMs());
        m.put("client.dns.lookup", config.clientDnsLookup().configValue());
        m.put("security.protocol", config.securityProtocol());
        m.putIfAbsent("connections.max.idle.ms", 540_000L);
        m.putIfAbsent("receive.buffer.bytes", 32_768);
        return new QuietConfig(m);
    }

    /** An {@link AdminClientConfig} that does not log every value at INFO (kmeta logs its own config). */
    private static final class QuietConfig extends AdminClientConfig {
        QuietConfig(Map<String, Object> props) {
            super(props, false);
        }
    }
}
