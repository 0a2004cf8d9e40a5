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

/**
 * {@code kmeta watch} against a real two-broker cluster: it prints the starting state, then a partition count
 * change, a leader move and a broker leaving and joining as they happen, each line with a timestamp; it ends on
 * {@code --duration}, and on {@link WatchCommand#stop()} (what its Ctrl-C hook calls).
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

    private static Thread daemon(Runnable runnable) {
        Thread thread = new Thread(runnable, "watch-test");
        thread.setDaemon(true);
        return thread;
    }
}
