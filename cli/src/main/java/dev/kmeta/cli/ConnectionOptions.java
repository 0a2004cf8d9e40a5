package dev.kmeta.cli;

import dev.kmeta.cli.Converters.Bootstrap;
import dev.kmeta.cli.Converters.ClientConfigFile;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine.Option;

/**
 * The Kafka tools' connection options, shared by {@code lookup}, {@code watch} and {@code doctor} (a picocli mixin):
 * {@code --bootstrap-server}, {@code --command-config} and {@code --embedded}. Not thread-safe; one per invocation.
 */
final class ConnectionOptions {
    private static final Set<String> PROTOCOLS = Set.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT[,...]",
            converter = Converters.BootstrapServers.class,
            description = "The brokers to bootstrap from (bootstrap.servers); PROTOCOL://HOST:PORT as Kafka accepts "
                    + "it (the protocol is security.protocol's, from --command-config).")
    Bootstrap bootstrapServers;

    @Option(names = "--command-config", paramLabel = "FILE", converter = Converters.PropertiesFile.class,
            description = "A properties file of client settings (security.protocol, ssl.*, sasl.*, timeouts...), "
                    + "as for the Kafka tools.")
    ClientConfigFile commandConfig;

    @Option(names = "--embedded",
            description = "Start an in-process Kafka cluster (one broker, topic '" + Connection.DEMO_TOPIC
                    + "' with " + Connection.DEMO_PARTITIONS + " partitions) and use it: try kmeta without a cluster.")
    boolean embedded;

    /**
     * A {@code PROTOCOL://} prefix that names another security protocol than the one in force is refused: Kafka
     * ignores the prefix, so {@code SASL_SSL://kafka:9093} without {@code security.protocol=SASL_SSL} would speak
     * PLAINTEXT to a TLS port and fail in a way that says nothing of the cause. A listener name (EXTERNAL://) is
     * ignored, as Kafka does.
     */
    private void checkListenerPrefixes(Object configured) {
        String protocol = configured == null ? "PLAINTEXT" : configured.toString().trim().toUpperCase(Locale.ROOT);
        if (!PROTOCOLS.contains(protocol)) {
            return; // not a protocol at all: the client's own validation names the key
        }
        for (HostPort hp : bootstrapServers.addresses()) {
            if (hp.listener() != null && PROTOCOLS.contains(hp.listener()) && !hp.listener().equals(protocol)) {
                throw new UsageException("--bootstrap-server " + hp.listener() + "://" + hp + " asks for "
                        + hp.listener() + ", but security.protocol is " + protocol + (configured == null
                        ? " (the default)" : "") + ": the prefix does not choose the protocol (Kafka ignores it); set "
                        + "security.protocol=" + hp.listener() + " in --command-config, or drop the prefix");
            }
        }
    }

    /**
     * Opens the connection the options describe: client properties, and the embedded cluster when asked for.
     *
     * @param clientId the {@code client.id} to use unless the command config sets one
     * @param err      where to say that an embedded cluster is starting
     * @throws UsageException if neither or both of {@code --bootstrap-server} and {@code --embedded} are given
     */
    Connection open(String clientId, PrintWriter err) {
        if (bootstrapServers == null && !embedded) {
            throw new UsageException("no cluster to talk to: give --bootstrap-server HOST:PORT (or --embedded to "
                    + "try kmeta on an in-process cluster)");
        }
        if (bootstrapServers != null && embedded) {
            throw new UsageException("--bootstrap-server and --embedded exclude each other: choose one");
        }
        Map<String, Object> props = new HashMap<>();
        if (commandConfig != null) {
            props.putAll(commandConfig.values());
        }
        props.putIfAbsent("client.id", clientId);
        // A tool that looks must never create: lookup of a misspelt name would create a topic on some clusters.
        props.put("allow.auto.create.topics", "false");
        if (embedded) {
            return Connection.embedded(props, err);
        }
        checkListenerPrefixes(props.get("security.protocol"));
        props.put("bootstrap.servers", bootstrapServers.addresses().stream().map(HostPort::toString)
                .collect(Collectors.joining(",")));
        return new Connection(props, bootstrapServers.addresses(), null);
    }
}
