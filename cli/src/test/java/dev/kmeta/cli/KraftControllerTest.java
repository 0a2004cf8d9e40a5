package dev.kmeta.cli;

import dev.kmeta.cli.CliTest.Run;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.kmeta.cli.CliTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code watch} and {@code doctor} on a 3-broker KRaft cluster (issue 18 item 3). Its brokers report a random live
 * broker as the Metadata answer's controller, another one from answer to answer; the active controller is the
 * metadata quorum's leader, the testkit's controller node {@value KafkaCluster#CONTROLLER_ID}. Watch printed
 * {@code controller 0 -> 1}, {@code controller 1 -> 0}... on a cluster where nothing moved; it must print the quorum
 * leader once and no controller changes, and doctor must name the quorum leader.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class KraftControllerTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(3);

    private static final Pattern CONTROLLER_CHANGE = Pattern.compile(".* controller \\S+ -> \\S+.*");
    private static final String QUORUM_LEADER = "controller " + KafkaCluster.CONTROLLER_ID
            + " (the KRaft metadata quorum's leader)";

    @Test
    void watchPrintsTheQuorumLeaderOnceAndNoControllerChurn() {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("steady", 3, 3);
        Run r = run("watch", "--bootstrap-server", cluster.bootstrapServers(), "--interval", "200ms",
                "--duration", "2s", "steady"); // 10 answers at 200 ms: a reported id that churned would show
        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.out().contains(" topic steady: 3 partition(s)"), r.toString());
        List<String> churn = r.outLines().stream().filter(l -> CONTROLLER_CHANGE.matcher(l).matches())
                .collect(Collectors.toList());
        assertEquals(List.of(), churn, "no controller moved: " + r);
        List<String> controllerLines = r.outLines().stream().filter(l -> l.contains(" controller "))
                .collect(Collectors.toList());
        assertEquals(1, controllerLines.size(), r.toString());
        assertTrue(controllerLines.get(0).endsWith(" " + QUORUM_LEADER), r.toString());
        assertTrue(r.out().contains(" cluster id " + cluster.clusterId() + "\n")
                || r.out().contains(" cluster id " + cluster.clusterId() + System.lineSeparator()),
                "the cluster id line names no reported controller: " + r);
    }

    @Test
    void doctorNamesTheQuorumLeaderAsTheController() {
        KafkaCluster cluster = KAFKA.cluster();
        Run r = run("doctor", "--bootstrap-server", cluster.bootstrapServers());
        assertEquals(0, r.exitCode(), r.toString());
        String metadata = r.outLines().stream().filter(l -> l.startsWith("OK    metadata response: "))
                .findFirst().orElseThrow(() -> new AssertionError("no metadata line: " + r));
        assertTrue(metadata.endsWith(": 3 broker(s), " + QUORUM_LEADER), metadata);
    }
}
