package dev.kmeta.sender.matrix;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.KafkaCluster;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import java.util.stream.Collectors;

import static org.awaitility.Awaitility.await;

/**
 * Assertion (a) of the matrix: a client's snapshot says what the cluster's own Admin client says - the cluster id, the
 * set of brokers (each reached at the address clients are meant to use), and for each topic its id, its partition
 * count and each partition's leader (or its absence).
 *
 * <p>Stateless and thread-safe.
 */
final class Convergence {
    private Convergence() {
    }

    /**
     * Waits (bounded) until the snapshot of {@code client} agrees with {@code cluster}'s Admin; fails with the last
     * differences. The client is not helped: it gets there by its own refreshes ({@code metadata.max.age.ms} and the
     * load's waits).
     *
     * @param clientPort the port a client reaches broker {@code id} at (its proxy, or its CLIENT listener)
     * @return how long it took, in ms
     */
    static long awaitAgreement(KafkaMetadata client, KafkaCluster cluster, Collection<String> topics,
                      IntUnaryOperator clientPort, Duration atMost) {
        long start = System.nanoTime();
        List<String> last = new ArrayList<>();
        try {
            await().pollDelay(Duration.ZERO).atMost(atMost).pollInterval(Duration.ofMillis(100)).until(() -> {
                List<String> now = differences(client.fetch(), cluster, topics, clientPort);
                last.clear();
                last.addAll(now);
                return now.isEmpty();
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("no convergence within " + atMost + ": " + last + "; snapshot " + client.fetch(),
                    e);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /** What differs between the snapshot and the Admin's view now (empty when they agree). */
    static List<String> differences(Cluster snapshot, KafkaCluster cluster, Collection<String> topics,
                                    IntUnaryOperator clientPort) throws InterruptedException {
        List<String> diffs = new ArrayList<>();
        if (!cluster.clusterId().equals(snapshot.clusterId())) {
            diffs.add("cluster id " + snapshot.clusterId() + " != " + cluster.clusterId());
        }
        Set<Integer> brokers = adminBrokers(cluster);
        Set<Integer> known = snapshot.nodes().stream().map(Node::id).collect(Collectors.toCollection(TreeSet::new));
        if (!brokers.equals(known)) {
            diffs.add("brokers " + known + " != " + brokers);
        }
        for (Node n : snapshot.nodes()) {
            if (n.port() != clientPort.applyAsInt(n.id())) {
                diffs.add("broker " + n.id() + " at port " + n.port() + ", expected " + clientPort.applyAsInt(n.id()));
            }
        }
        for (String topic : topics) {
            topicDifferences(snapshot.topic(topic), describe(cluster, topic), diffs);
        }
        return diffs;
    }

    private static void topicDifferences(TopicMetadata mine, TopicDescription admin, List<String> diffs) {
        if (admin == null || mine == null) {
            if (admin != null) {
                diffs.add("missing " + admin);
            } else if (mine != null) {
                diffs.add("deleted, still known: " + mine);
            }
            return;
        }
        String name = admin.name();
        if (!toUuid(admin.topicId()).equals(mine.topicId())) {
            diffs.add(name + ": topic id " + mine.topicId() + " != " + admin.topicId());
        }
        if (mine.partitionCount() != admin.partitions().size()) {
            diffs.add(name + ": " + mine.partitionCount() + " partitions != " + admin.partitions().size());
            return;
        }
        for (TopicPartitionInfo p : admin.partitions()) {
            int leader = p.leader() == null || p.leader().isEmpty() ? PartitionMetadata.NO_LEADER : p.leader().id();
            int myLeader = mine.partition(p.partition()).leaderId();
            if (leader != myLeader) {
                diffs.add(name + "-" + p.partition() + ": leader " + myLeader + " != " + leader);
            }
        }
    }

    /** The brokers the cluster's Admin lists now (registered and not fenced). */
    static Set<Integer> adminBrokers(KafkaCluster cluster) throws InterruptedException {
        try {
            return cluster.admin().describeCluster().nodes().get(10, TimeUnit.SECONDS).stream()
                    .map(org.apache.kafka.common.Node::id).collect(Collectors.toCollection(TreeSet::new));
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("Admin describeCluster failed", e);
        }
    }

    /** Admin's description of a topic, or null when it does not exist. */
    static TopicDescription describe(KafkaCluster cluster, String topic) throws InterruptedException {
        try {
            Map<String, TopicDescription> all = cluster.admin().describeTopics(List.of(topic)).allTopicNames()
                    .get(10, TimeUnit.SECONDS);
            return all.get(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return null;
            }
            throw new AssertionError("Admin describeTopics(" + topic + ") failed", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("Admin describeTopics(" + topic + ") timed out", e);
        }
    }

    static UUID toUuid(Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }
}
