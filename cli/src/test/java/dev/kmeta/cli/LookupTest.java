package dev.kmeta.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kmeta.cli.CliTest.Run;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.kmeta.cli.CliTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kmeta lookup} against a real two-broker cluster: the table and the JSON name the leaders the cluster's own
 * Admin client sees, with their addresses, epochs, replicas and ISR; a missing topic is one line and exit 1.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LookupTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(2);

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 4;
    private static final Pattern ROW = Pattern.compile(
            "^(\\d+)\\s+(\\d+|none)\\s+(\\S+)\\s+(\\d+|-)\\s+([\\d,]+|-)\\s+([\\d,]+|-)\\s+([\\d,]+|-)$");

    @BeforeAll
    static void createTopic() {
        KAFKA.cluster().createTopic(TOPIC, PARTITIONS, 2);
    }

    private static TopicDescription describe() throws Exception {
        return KAFKA.cluster().admin().describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS)
                .get(TOPIC);
    }

    @Test
    void tableShowsEachPartitionsLeaderAsTheClusterSeesIt() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        Run r = run("lookup", "--bootstrap-server", cluster.bootstrapServers(), TOPIC);
        assertEquals(0, r.exitCode(), r.toString());
        List<String> lines = r.outLines();
        assertTrue(lines.get(0).startsWith("Topic orders: 4 partition(s), id " + describe().topicId()
                + ", cluster " + cluster.clusterId()), r.toString());
        assertTrue(lines.get(1).matches("PARTITION\\s+LEADER\\s+LEADER-ADDRESS\\s+EPOCH\\s+REPLICAS\\s+ISR\\s+OFFLINE"),
                r.toString());
        assertEquals(2 + PARTITIONS, lines.size(), r.toString());
        Set<Integer> leaders = new HashSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            Matcher m = ROW.matcher(lines.get(2 + p));
            assertTrue(m.matches(), "row " + p + ": " + lines.get(2 + p));
            assertEquals(p, Integer.parseInt(m.group(1)));
            int leader = cluster.leader(TOPIC, p);
            assertEquals(String.valueOf(leader), m.group(2), "leader of " + p + ": " + r);
            assertEquals("127.0.0.1:" + cluster.brokerAddress(leader).getPort(), m.group(3), r.toString());
            assertEquals(2, m.group(5).split(",").length, "two replicas: " + r);
            assertTrue(m.group(6).contains(m.group(2)), "the leader is in the ISR: " + r);
            leaders.add(leader);
        }
        assertEquals(Set.of(0, 1), leaders, "both brokers lead some partition, so the comparison means something");
    }

    @Test
    void jsonHasTheSameFactsForScripts() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        Run r = run("lookup", "--bootstrap-server", cluster.bootstrapServers(), "--json", TOPIC);
        assertEquals(0, r.exitCode(), r.toString());
        assertEquals(1, r.outLines().size(), "one line of JSON: " + r);
        JsonNode json = parse(r.out());
        TopicDescription description = describe();
        assertEquals(TOPIC, json.get("topic").asText());
        assertEquals(description.topicId().toString(), json.get("topicId").asText());
        assertEquals(cluster.clusterId(), json.get("clusterId").asText());
        assertEquals(PARTITIONS, json.get("partitionCount").asInt());
        JsonNode partitions = json.get("partitions");
        assertEquals(PARTITIONS, partitions.size(), r.toString());
        for (TopicPartitionInfo info : description.partitions()) {
            JsonNode p = partitions.get(info.partition());
            assertEquals(info.partition(), p.get("partition").asInt());
            JsonNode leader = p.get("leader");
            assertEquals(info.leader().id(), leader.get("id").asInt(), r.toString());
            assertEquals(cluster.leader(TOPIC, info.partition()), leader.get("id").asInt(), r.toString());
            assertEquals("127.0.0.1", leader.get("host").asText());
            assertEquals(cluster.brokerAddress(info.leader().id()).getPort(), leader.get("port").asInt());
            assertTrue(p.get("leaderEpoch").asInt() >= 0, r.toString());
            assertEquals(ids(info.replicas()), ids(p.get("replicas")), r.toString());
            assertEquals(new HashSet<>(ids(info.isr())), new HashSet<>(ids(p.get("isr"))), r.toString());
            assertEquals(0, p.get("offlineReplicas").size(), r.toString());
        }
    }

    @Test
    void missingTopicIsOneLineAndExit1() {
        Run r = run("lookup", "--bootstrap-server", KAFKA.bootstrapServers(), "--timeout", "20s", "no-such-topic");
        assertEquals(KmetaCli.EXIT_PROBLEM, r.exitCode(), r.toString());
        assertEquals(1, r.errLines().size(), r.toString());
        assertTrue(r.err().startsWith("kmeta lookup: topic no-such-topic does not exist: the brokers answered "
                + "UNKNOWN_TOPIC_OR_PARTITION"), r.toString());
        assertEquals("", r.out(), r.toString());
    }

    private static JsonNode parse(String text) throws IOException {
        return new ObjectMapper().readTree(text);
    }

    private static List<Integer> ids(List<org.apache.kafka.common.Node> nodes) {
        return nodes.stream().map(org.apache.kafka.common.Node::id).toList();
    }

    private static List<Integer> ids(JsonNode array) {
        List<Integer> result = new java.util.ArrayList<>();
        array.forEach(n -> result.add(n.asInt()));
        return result;
    }
}
