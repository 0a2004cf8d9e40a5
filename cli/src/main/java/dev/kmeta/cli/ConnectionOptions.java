package dev.kmeta.cli;

import dev.kmeta.cli.Converters.Bootstrap;
import dev.kmeta.cli.Converters.ClientConfigFile;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine.Option;

/**
 * The Kafka tools' connection options, shared by {@code lookup}, {@code watch} and {@code doctor} (a picocli mixin):
 * {@code --bootstrap-server}, {@code --command-config} and {@code --embedded}. Not thread-safe; one per invocation.
 */
final class ConnectionOptions {
    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT[,...]",
            converter = Converters.BootstrapServers.class,
            description = "The brokers to bootstrap from (bootstrap.servers).")
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
        props.put("bootstrap.servers", bootstrapServers.addresses().stream().map(HostPort::toString)
                .collect(Collectors.joining(",")));
        return new Connection(props, bootstrapServers.addresses(), null);
    }
}
