package dev.kmeta.cli;

import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.sender.HostResolverHook;
import dev.kmeta.sender.KafkaMetadata;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code kmeta lookup TOPIC}: where each partition of a topic goes - leader id, address and epoch, replicas, ISR -
 * as kmeta's snapshot has it; a table, or JSON with {@code --json}. Not thread-safe; one instance per invocation.
 */
@Command(name = "lookup", mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = VersionProvider.class,
        description = "Show each partition's leader (id, address, epoch), replicas and ISR for a topic.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the topic was found", "1:the topic does not exist, is not authorized, or no answer came",
            "2:bad input (unknown option, bad value, unreadable file, no cluster given)"})
final class LookupCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions connection;

    @Parameters(paramLabel = "TOPIC", converter = Converters.TopicName.class, description = "The topic.")
    String topic;

    @Option(names = "--json", description = "Print one line of JSON instead of a table.")
    boolean json;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Durations.Millis.class, defaultValue = "10s",
            description = "How long to wait for the answer (500ms, 10s, 1m; a bare number is seconds; "
                    + "default ${DEFAULT-VALUE}).")
    long timeoutMs;

    private static final java.util.Set<Diagnosis.Cause> MISFIT_LOOKALIKES = java.util.EnumSet.of(
            Diagnosis.Cause.AUTHENTICATION_FAILED, Diagnosis.Cause.TLS_HANDSHAKE_FAILED,
            Diagnosis.Cause.BOOTSTRAP_UNREACHABLE, Diagnosis.Cause.NO_ANSWER_IN_TIME);
    /** How long the listener probes may take together (connections and answers). */
    private static final int PROBE_TIMEOUT_MS = 3_000;

    /** How host names are resolved: the system's, or a fake in tests (package-private hook). */
    HostResolverHook resolver = HostResolverHook.system();

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Connection conn = connection.open("kmeta-lookup", err);
             KafkaMetadata metadata = conn.metadata(resolver)) {
            TopicProbe.Result result = TopicProbe.probe(metadata, topic, timeoutMs);
            if (result.outcome() != TopicProbe.Outcome.FOUND) {
                ListenerFit.Mismatch m = misfit(conn, result);
                err.println("kmeta lookup: " + (m == null ? result.message() : m.seen() + ". Fix: " + m.fix()));
                err.flush();
                return KmetaCli.EXIT_PROBLEM;
            }
            TopicMetadata t = result.cluster().topic(topic);
            out.print(json ? PartitionTable.json(result.cluster(), t) + System.lineSeparator()
                    : PartitionTable.table(result.cluster(), t));
            out.flush();
            return KmetaCli.EXIT_OK;
        }
    }

    /**
     * For the failures a security.protocol that does not fit the port looks like - authentication failed (SASL
     * against PLAINTEXT), TLS failed, or connections that keep dropping (TLS against PLAINTEXT, PLAINTEXT against
     * SASL) - asks the listener what it speaks ({@link ListenerProbe}, as doctor does); null when that is not it.
     */
    private ListenerFit.Mismatch misfit(Connection conn, TopicProbe.Result result) {
        Diagnosis d = result.diagnosis();
        if (result.outcome() != TopicProbe.Outcome.NO_ANSWER || d == null
                || !MISFIT_LOOKALIKES.contains(d.cause())) {
            return null;
        }
        return ListenerFit.check(conn, conn.bootstrap(), new Reachability(resolver, PROBE_TIMEOUT_MS),
                PROBE_TIMEOUT_MS);
    }
}
