package dev.kmeta.cli;

import dev.kmeta.metadata.ConfigException;
import dev.kmeta.sender.HostResolverHook;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.KafkaCluster;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What a command talks to: the client properties (bootstrap, command config, kmeta's defaults for tools) and, with
 * {@code --embedded}, the in-process cluster it started, which {@link #close()} stops. Not thread-safe.
 */
final class Connection implements AutoCloseable {
    static final String DEMO_TOPIC = "kmeta-demo";
    static final int DEMO_PARTITIONS = 3;

    private final Map<String, Object> props;
    private final List<HostPort> bootstrap;
    private final KafkaCluster embedded;

    Connection(Map<String, Object> props, List<HostPort> bootstrap, KafkaCluster embedded) {
        this.props = Map.copyOf(props);
        this.bootstrap = List.copyOf(bootstrap);
        this.embedded = embedded;
    }

    /** Starts a one-broker cluster on loopback with the demo topic; it lives until {@link #close()} (or JVM exit). */
    static Connection embedded(Map<String, Object> props, PrintWriter err) {
        err.println("kmeta: starting an embedded Kafka cluster (one broker on 127.0.0.1, topic " + DEMO_TOPIC + ")...");
        err.flush();
        KafkaCluster cluster = KafkaCluster.builder()
                .storageRoot(Path.of(System.getProperty("java.io.tmpdir")))
                .build()
                .start();
        try {
            cluster.createTopic(DEMO_TOPIC, DEMO_PARTITIONS, 1);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        err.println("kmeta: embedded cluster ready at " + cluster.bootstrapServers()
                + " (it stops when this command ends)");
        err.flush();
        Map<String, Object> withBootstrap = new java.util.HashMap<>(props);
        withBootstrap.put("bootstrap.servers", cluster.bootstrapServers());
        return new Connection(withBootstrap, HostPort.parseList(cluster.bootstrapServers()), cluster);
    }

    /** The client properties (they may hold credentials: never print them). */
    Map<String, Object> props() {
        return props;
    }

    /** The bootstrap addresses, as given. */
    List<HostPort> bootstrap() {
        return bootstrap;
    }

    /** The value of {@code security.protocol}, upper case; PLAINTEXT when not set. */
    String securityProtocol() {
        Object value = props.get("security.protocol");
        return value == null ? "PLAINTEXT" : value.toString().trim().toUpperCase(java.util.Locale.ROOT);
    }

    /**
     * Starts a kmeta client with these properties.
     *
     * @throws UsageException if a property has a bad value (the message names the key)
     */
    KafkaMetadata metadata(HostResolverHook resolver) {
        return metadata(resolver, Map.of());
    }

    /** {@link #metadata(HostResolverHook)} with {@code overrides} over these properties (a command's own options). */
    KafkaMetadata metadata(HostResolverHook resolver, Map<String, Object> overrides) {
        Map<String, Object> all = new java.util.HashMap<>(props);
        all.putAll(overrides);
        try {
            return KafkaMetadata.builder(all).hostResolver(resolver).build();
        } catch (ConfigException | org.apache.kafka.common.config.ConfigException e) {
            throw new UsageException("bad client setting: " + e.getMessage());
        } catch (org.apache.kafka.common.KafkaException e) {
            // kafka-clients builds its channels (TLS stores, SASL login) at start: a setting only the user can fix
            throw new UsageException("cannot start a client with these settings: " + oneLine(e));
        }
    }

    /** An exception and its causes' messages on one line. */
    static String oneLine(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null && sb.length() < 500; t = t.getCause()) {
            if (sb.length() > 0) {
                sb.append(": ");
            }
            sb.append(t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage());
        }
        return sb.toString().replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }

    @Override
    public void close() {
        if (embedded != null) {
            embedded.close();
        }
    }
}
