package dev.kmeta.cli;

import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.KafkaException;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.sender.HostResolverHook;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import dev.kmeta.sender.MetadataStats;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import java.time.Duration;

/**
 * {@code kmeta watch [TOPIC...]}: a live view of metadata changes, one timestamped line each - leader moves, partition
 * counts, brokers joining and leaving, cluster id changes, the controller - until Ctrl-C or {@code --duration}.
 *
 * <p>It subscribes the topics with kmeta, asks for fresh metadata every {@code --interval} (with
 * {@code --max-staleness}, or a staleness target in the command config, it leaves that to the target and prints a line
 * each time the target refreshed, with the oldest topic's age), and prints the
 * {@link ClusterDiff} between each new snapshot and the last one shown. The controller is not taken from the
 * snapshots (on KRaft their controller id is a random live broker, another one from answer to answer): every
 * interval a {@link ControllerProbe} asks the metadata quorum's leader, without blocking the loop, and
 * {@link ControllerView} says when it changes. Ctrl-C ({@link #stopSignal}) calls {@link #stop()}, which closes the
 * kmeta client (releasing the waiting loop at once); the loop prints its last line and the command returns 0, as for
 * {@code --duration}. A shutdown hook does the same when the JVM is asked to exit another way (SIGTERM) and waits for
 * the loop's last line.
 *
 * <p>Not thread-safe, except {@link #stop()}, which any thread may call.
 */
@Command(name = "watch", mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = VersionProvider.class,
        description = "Print metadata changes as they happen (leaders, partition counts, brokers, cluster id), "
                + "with timestamps, until Ctrl-C or --duration.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:stopped by Ctrl-C or --duration", "1:the client failed (e.g. authentication)",
            "2:bad input (unknown option, bad value, unreadable file, no cluster given)"})
final class WatchCommand implements Callable<Integer> {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);
    /** How long the shutdown hook waits for the loop's last lines. */
    private static final long STOP_WAIT_MS = 5_000;
    /** How long one question to the metadata quorum may take at most. */
    private static final long QUORUM_TIMEOUT_MAX_MS = 3_000;

    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions connection;

    // Checked in call(): picocli reports a bad value among several positional ones as "unmatched", not as bad.
    @Parameters(paramLabel = "TOPIC", arity = "0..*",
            description = "Topics to watch (brokers and cluster id are always watched).")
    List<String> topics = new ArrayList<>();

    @Option(names = "--interval", paramLabel = "DURATION", converter = Durations.Millis.class, defaultValue = "1s",
            description = "How often to ask for fresh metadata (500ms, 5s, 1m; a bare number is seconds; "
                    + "default ${DEFAULT-VALUE}).")
    long intervalMs;

    @Option(names = "--duration", paramLabel = "DURATION", converter = Durations.Millis.class,
            description = "Stop after this long (10s, 5m, 1h; a bare number is seconds; default: until Ctrl-C).")
    Long durationMs;

    @Option(names = "--max-staleness", paramLabel = "DURATION", converter = Durations.Millis.class,
            description = "Run the client with this staleness target (kmeta.metadata.max.staleness.ms): it refreshes "
                    + "a topic once its metadata is older, and the watch (given topics) stops asking for a refresh "
                    + "every --interval and prints a line whenever the target made one, with the oldest topic's age.")
    Long maxStalenessMs;

    /** How Ctrl-C reaches the loop: {@link StopSignal#ctrlC()} when run by {@link KmetaCli#main}; tests fake it. */
    StopSignal stopSignal = StopSignal.none();

    private volatile boolean stopped;
    private volatile KafkaMetadata running;
    private final CountDownLatch finished = new CountDownLatch(1);

    @Override
    public Integer call() {
        for (String topic : topics) {
            new Converters.TopicName().convert(topic);
        }
        PrintWriter out = spec.commandLine().getOut();
        Thread hook = new Thread(this::stopAndWait, "kmeta-watch-shutdown");
        StopSignal.Subscription ctrlC = null;
        try (Connection conn = connection.open("kmeta-watch", spec.commandLine().getErr());
             KafkaMetadata metadata = conn.metadata(HostResolverHook.system(), maxStalenessMs == null ? Map.of()
                     : Map.of(MetadataConfig.KMETA_METADATA_MAX_STALENESS_MS, maxStalenessMs));
             ControllerProbe quorum = new ControllerProbe(conn.props(), "kmeta-watch-quorum")) {
            running = metadata;
            Runtime.getRuntime().addShutdownHook(hook);
            ctrlC = stopSignal.onStop(this::stop);
            line(out, "watching " + conn.props().get("bootstrap.servers") + (topics.isEmpty() ? ""
                    : ", topics " + String.join(", ", topics)) + " (every " + Durations.format(intervalMs)
                    + (durationMs == null ? ", Ctrl-C to stop)" : ", for " + Durations.format(durationMs) + ")"));
            return loop(metadata, quorum, out);
        } finally {
            if (ctrlC != null) {
                ctrlC.close();
            }
            removeHook(hook);
            finished.countDown();
        }
    }

    /** Ends the watch: the loop returns within moments (what Ctrl-C does). Any thread; idempotent. */
    void stop() {
        stopped = true;
        KafkaMetadata m = running;
        if (m != null) {
            m.close(); // releases the loop's awaitUpdate at once
        }
    }

    private void stopAndWait() {
        stop();
        try {
            finished.await(STOP_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private int loop(KafkaMetadata metadata, ControllerProbe quorum, PrintWriter out) {
        long endNs = durationMs == null ? Long.MAX_VALUE : System.nanoTime() + durationMs * 1_000_000L;
        long nextRefreshNs = System.nanoTime();
        Cluster shown = Cluster.empty();
        boolean unreachable = false;
        CompletableFuture<ControllerProbe.Answer> asking = null;
        ControllerProbe.Answer answer = null;
        ControllerView controller = null;
        long staleRefreshesShown = 0;
        while (!stopped) {
            long now = System.nanoTime();
            if (now - endNs >= 0) {
                break;
            }
            if (now - nextRefreshNs >= 0) {
                if (!refresh(metadata, out)) {
                    break;
                }
                // ZooKeeper-era brokers do not learn DescribeQuorum: asking once is enough.
                if (asking == null && (answer == null || answer.mode() != ControllerProbe.Mode.ZOOKEEPER)) {
                    asking = quorum.ask(Math.min(Math.max(intervalMs, 1_000), QUORUM_TIMEOUT_MAX_MS));
                }
                nextRefreshNs = now + intervalMs * 1_000_000L;
            }
            long waitMs = Math.max(1, (Math.min(nextRefreshNs, endNs) - now) / 1_000_000L);
            try {
                metadata.awaitUpdate(shown.version(), metadata.newDeadline(Duration.ofMillis(waitMs)));
            } catch (KafkaMetadataTimeoutException e) {
                // nothing new this interval
            } catch (KafkaException e) {
                if (e.getCause() instanceof MetadataClosedException) {
                    break;
                }
                line(out, "the client failed: " + Diagnosis.from(e).map(Diagnosis::message)
                        .orElse(Connection.oneLine(e)));
                return KmetaCli.EXIT_PROBLEM;
            }
            shown = show(shown, metadata.fetch(), out);
            if (asking != null && asking.isDone()) {
                answer = asking.join();
                asking = null;
            }
            if (answer != null && !shown.nodes().isEmpty()) { // after the first snapshot's lines
                ControllerView current = ControllerView.of(answer, controller, shown);
                for (String change : current.changesSince(controller)) {
                    line(out, change);
                }
                controller = current;
            }
            unreachable = reachability(metadata.evidence(), unreachable, out);
            staleRefreshesShown = staleness(metadata, staleRefreshesShown, out);
        }
        line(out, "stopped");
        return KmetaCli.EXIT_OK;
    }

    /** Touches every topic (subscribing it, keeping it from idle expiry) and asks for fresh metadata. */
    private boolean refresh(KafkaMetadata metadata, PrintWriter out) {
        try {
            for (String topic : topics) {
                try {
                    metadata.awaitTopic(topic, metadata.newDeadline(Duration.ZERO));
                } catch (KafkaMetadataTimeoutException | TopicAuthorizationException | InvalidTopicException e) {
                    // not known (yet), or refused: the snapshot's diff says which
                }
            }
            if (metadata.config().maxStalenessMs() == 0 || topics.isEmpty()) {
                metadata.requestUpdate(); // with a staleness target, the target keeps the topics fresh
            }
            return true;
        } catch (KafkaException e) {
            if (!(e.getCause() instanceof MetadataClosedException)) {
                line(out, "the client failed: " + Connection.oneLine(e));
            }
            return false;
        }
    }

    /**
     * With a staleness target: one line each time it made refreshes since the last look, with the oldest subscribed
     * topic's age; returns the count shown.
     */
    private static long staleness(KafkaMetadata metadata, long shown, PrintWriter out) {
        long target = metadata.config().maxStalenessMs();
        if (target == 0) {
            return shown;
        }
        MetadataStats stats = metadata.stats();
        if (stats.staleRefreshes() == shown) {
            return shown;
        }
        line(out, "staleness: " + stats.staleRefreshes() + " refresh(es) of topics older than "
                + Durations.format(target) + " so far; oldest topic " + ageText(stats.oldestTopicAgeMs()));
        return stats.staleRefreshes();
    }

    private static String ageText(long ageMs) {
        return ageMs < 0 ? "not described yet" : String.format(java.util.Locale.ROOT, "%.3f s old", ageMs / 1_000.0);
    }

    /** Says when every address kmeta uses fails now, and when one answers again; returns the new state. */
    private static boolean reachability(ConnectionEvidence evidence, boolean wasUnreachable, PrintWriter out) {
        boolean unreachable = allFailing(evidence);
        if (unreachable && !wasUnreachable) {
            line(out, "no broker answers: " + evidence.summary());
        } else if (!unreachable && wasUnreachable) {
            line(out, "brokers answer again");
        }
        return unreachable;
    }

    /**
     * True when the last event on every address kmeta uses is a problem: the learned brokers once there are any (the
     * bootstrap addresses are not asked again until a rebootstrap, so their old answers say nothing), else the
     * bootstrap addresses.
     */
    static boolean allFailing(ConnectionEvidence evidence) {
        List<ConnectionEvidence.Record> records = new ArrayList<>(evidence.records());
        if (records.stream().anyMatch(r -> !r.isBootstrap())) {
            records.removeIf(ConnectionEvidence.Record::isBootstrap);
        }
        return !records.isEmpty() && records.stream().allMatch(ConnectionEvidence.Record::failingNow);
    }

    private Cluster show(Cluster shown, Cluster now, PrintWriter out) {
        if (now.version() == shown.version()) {
            return shown;
        }
        for (String change : ClusterDiff.changes(shown, now, false)) {
            line(out, change);
        }
        return now;
    }

    private static void line(PrintWriter out, String text) {
        out.println(TIME.format(Instant.now()) + " " + text);
        out.flush();
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is running (or ran) and waits for this method's caller
        }
    }
}
