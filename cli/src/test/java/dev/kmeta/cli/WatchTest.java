package dev.kmeta.cli;

import dev.kmeta.cli.CliTest.Run;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

import static dev.kmeta.cli.CliTest.run;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code kmeta watch} against a real two-broker cluster: it prints the starting state, then a partition count
 * change, a leader move and a broker leaving and joining as they happen, each line with a timestamp; it ends on
 * {@code --duration}, on {@link WatchCommand#stop()}, through its stop signal, and on a real Ctrl-C (SIGINT to a
 * child JVM), each with exit 0.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class WatchTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(2);

    private static final Pattern TIMESTAMPED = Pattern.compile("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z .+");
    private static final Duration CHANGE_SEEN = Duration.ofSeconds(30);

    @Test
    void seesPartitionCountChangeLeaderMoveAndBrokersLeavingAndJoining() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("watched", 2, 2);
        CommandLine commandLine = KmetaCli.commandLine();
        WatchCommand watch = commandLine.getSubcommands().get("watch").getCommand();
        StringWriter out = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(new StringWriter(), true));
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> commandLine.execute("watch",
                "--bootstrap-server", cluster.bootstrapServers(), "--interval", "200ms", "--duration", "120s",
                "watched"), command -> daemon(command).start());
        try {
            await().atMost(CHANGE_SEEN).until(() -> out.toString().contains("topic watched: 2 partition(s)"));

            cluster.addPartitions("watched", 3);
            await().atMost(CHANGE_SEEN).until(() -> out.toString().contains("topic watched: partitions 2 -> 3"));

            int leader = cluster.leader("watched", 0);
            int other = 1 - leader;
            cluster.stopBroker(leader); // controlled shutdown: leadership moves to the other replica
            try {
                await().atMost(CHANGE_SEEN).until(() -> out.toString().contains("watched-0: leader " + leader
                        + " -> " + other));
                await().atMost(CHANGE_SEEN).until(() -> out.toString().contains("broker " + leader + " left"));
            } finally {
                cluster.startBroker(leader);
            }
            await().atMost(CHANGE_SEEN).until(() -> out.toString().contains("broker " + leader + " joined at "
                    + "127.0.0.1:" + cluster.brokerAddress(leader).getPort()));
        } finally {
            watch.stop();
        }
        assertEquals(0, exit.get(30, TimeUnit.SECONDS), out.toString());
        String[] lines = out.toString().split("\\R");
        for (String line : lines) {
            assertTrue(TIMESTAMPED.matcher(line).matches(), "timestamped: " + line);
        }
        assertTrue(lines[lines.length - 1].endsWith(" stopped"), out.toString());
    }

    @Test
    void durationEndsTheWatch() {
        KafkaCluster cluster = KAFKA.cluster();
        Run r = run("watch", "--bootstrap-server", cluster.bootstrapServers(), "--interval", "200ms",
                "--duration", "2s");
        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.out().contains(" cluster id " + cluster.clusterId()), r.toString());
        for (int id : cluster.brokerIds()) {
            assertTrue(r.out().contains(" broker " + id + " at 127.0.0.1:" + cluster.brokerAddress(id).getPort()),
                    r.toString());
        }
        assertTrue(r.outLines().get(r.outLines().size() - 1).endsWith(" stopped"), r.toString());
    }

    /**
     * {@code --max-staleness}: the watch no longer asks for a refresh every interval; the client's staleness target
     * refreshes the topic, and each time it did the watch prints a line with the count and the oldest topic's age.
     */
    @Test
    void maxStalenessShowsTheStalenessRefreshesAndTheOldestTopicAge() {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("stale-watched", 1, 1);
        Run r = run("watch", "--bootstrap-server", cluster.bootstrapServers(), "--interval", "200ms",
                "--max-staleness", "1500ms", "--duration", "4s", "stale-watched");
        assertEquals(0, r.exitCode(), r.toString());
        java.util.List<String> staleness = r.outLines().stream().filter(l -> l.contains(" staleness: ")).toList();
        // Were the watch still asking for a refresh every 200 ms (no more than one a second after the backoff), the
        // topic would never be 1.5 s old.
        assertTrue(staleness.size() >= 1, r.toString());
        assertTrue(Pattern.compile(" staleness: \\d+ refresh\\(es\\) of topics older than 1500ms so far; oldest "
                + "topic \\d+\\.\\d{3} s old$").matcher(staleness.get(0)).find(), staleness.get(0));
        assertTrue(staleness.size() <= 4_000 / 1_500 + 1, "at most one per target period: " + staleness);
    }

    /**
     * Ctrl-C, for real: SIGINT to a child JVM running {@code kmeta watch} ends it with "stopped" and exit 0, as
     * documented (the JVM's own handling, a shutdown, made it 130 whatever the command returned).
     */
    @Test
    void ctrlCEndsTheWatchWithExit0() throws Exception {
        assumeTrue(sigintReachesChildren(), "SIGINT is ignored in this JVM (a background job of a non-interactive "
                + "shell), and so in its children: a Ctrl-C cannot be sent to them");
        KafkaCluster cluster = KAFKA.cluster();
        try (CliProcess watch = CliProcess.start("watch", "--bootstrap-server", cluster.bootstrapServers(),
                "--interval", "200ms")) {
            watch.awaitLine(l -> l.contains(" cluster id " + cluster.clusterId()), CHANGE_SEEN);
            Process kill = new ProcessBuilder("kill", "-INT", Long.toString(watch.pid())).inheritIO().start();
            assertEquals(0, kill.waitFor(), "kill -INT " + watch.pid());
            CliProcess.Result r = watch.await(Duration.ofSeconds(30));
            assertEquals(KmetaCli.EXIT_OK, r.exitCode(), r.toString());
            assertTrue(r.out().get(r.out().size() - 1).endsWith(" stopped"), r.toString());
            assertEquals(java.util.List.of(), r.errLines(), r.toString());
        }
    }

    /** The stop signal the command gets is installed while it watches, and stopping through it is exit 0. */
    @Test
    void theStopSignalEndsTheWatchWithExit0AndIsRemovedAfter() throws Exception {
        CommandLine commandLine = KmetaCli.commandLine();
        WatchCommand watch = commandLine.getSubcommands().get("watch").getCommand();
        java.util.concurrent.atomic.AtomicReference<Runnable> ctrlC = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean removed = new java.util.concurrent.atomic.AtomicBoolean();
        watch.stopSignal = stop -> {
            ctrlC.set(stop);
            return () -> removed.set(true);
        };
        StringWriter out = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(new StringWriter(), true));
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> commandLine.execute("watch",
                "--bootstrap-server", KAFKA.cluster().bootstrapServers(), "--interval", "200ms"),
                command -> daemon(command).start());
        await().atMost(CHANGE_SEEN).until(() -> out.toString().contains(" cluster id "));
        assertTrue(ctrlC.get() != null && !removed.get(), "subscribed while watching");
        ctrlC.get().run();
        assertEquals(0, exit.get(30, TimeUnit.SECONDS), out.toString());
        assertTrue(out.toString().strip().endsWith(" stopped"), out.toString());
        assertTrue(removed.get(), "unsubscribed when the watch ended");
    }

    /** False when this JVM ignores SIGINT (Linux: /proc says so); children inherit that. */
    private static boolean sigintReachesChildren() throws java.io.IOException {
        java.nio.file.Path status = java.nio.file.Path.of("/proc/self/status");
        if (!java.nio.file.Files.exists(status)) {
            return true;
        }
        for (String line : java.nio.file.Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & (1L << (2 - 1))) == 0;
            }
        }
        return true;
    }

    private static Thread daemon(Runnable runnable) {
        Thread thread = new Thread(runnable, "watch-test");
        thread.setDaemon(true);
        return thread;
    }
}
