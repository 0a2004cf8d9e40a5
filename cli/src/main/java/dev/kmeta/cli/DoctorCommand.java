package dev.kmeta.cli;

import dev.kmeta.sender.HostResolverHook;
import dev.kmeta.sender.KafkaMetadata;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kmeta doctor}: the connectivity checklist in one go (see {@link Doctor}), each check OK, FAIL with a
 * one-line fix, or SKIP. Not thread-safe; one instance per invocation.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = VersionProvider.class,
        description = "Check the path from here to a topic's leaders: DNS, TCP, TLS/SASL, metadata, advertised "
                + "listeners, the topic, its leaders, the cluster id. Each check prints OK, FAIL (with a fix) or SKIP.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every check passed", "1:a check failed",
            "2:bad input (unknown option, bad value, unreadable file, no cluster given)"})
final class DoctorCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions connection;

    @Option(names = "--topic", paramLabel = "TOPIC", converter = Converters.TopicName.class,
            description = "The topic to check (without it, the topic checks are left out).")
    String topic;

    @Option(names = "--expect-cluster-id", paramLabel = "ID",
            description = "Fail unless the cluster id is this one (catches a bootstrap that leads to the wrong "
                    + "cluster).")
    String expectedClusterId;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Durations.Millis.class, defaultValue = "10s",
            description = "How long to wait for each answer (500ms, 10s, 1m; a bare number is seconds; default "
                    + "${DEFAULT-VALUE}); TCP connects wait at most 5s.")
    long timeoutMs;

    /** How host names are resolved: the system's, or a fake in tests (package-private hook). */
    HostResolverHook resolver = HostResolverHook.system();

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        // The client first: settings it cannot start on are bad input (exit 2), refused before any check is printed.
        try (Connection conn = connection.open("kmeta-doctor", spec.commandLine().getErr());
             KafkaMetadata metadata = conn.metadata(resolver)) {
            out.println("kmeta doctor: " + conn.props().get("bootstrap.servers") + " ("
                    + conn.securityProtocol() + ")" + (topic == null ? "" : ", topic " + topic));
            Checklist checks = new Checklist(out);
            int failures = new Doctor(conn, metadata, resolver, checks, topic, expectedClusterId, timeoutMs).run();
            checks.summary();
            return failures == 0 ? KmetaCli.EXIT_OK : KmetaCli.EXIT_PROBLEM;
        }
    }
}
