package dev.kmeta.bench;

import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The heap Kafka's own {@link Cluster} index takes over a given set of partitions - what any metadata that a
 * KafkaProducer's Sender and accumulator read must hold, whoever builds it ({@code Cluster} is final; its constructor
 * builds a {@code TopicPartition} map and per-topic and per-node lists). The floor under P5k's per-partition cost on
 * the KafkaProducer route: {@link RouteRetainedHeap}'s topic names ({@code topic-%05d}), 3 nodes, leaders and replica
 * lists rotating, the replica arrays shared as the route shares them. Method (as {@link RetainedHeap}): the difference
 * of two class histograms, before and after the {@code Cluster} is made, the {@code PartitionInfo}s alive in both
 * (they are counted apart, 40 B each); the classes that grew are listed.
 *
 * <pre>{@code
 * java -XX:+UseSerialGC -Xmx1g -cp bench/target/benchmarks.jar dev.kmeta.bench.KafkaClusterIndexHeap --topics 100 --partitions 100
 * }</pre>
 *
 * <p>Not thread-safe; a program.
 */
public final class KafkaClusterIndexHeap {
    private static volatile Object kept;

    private KafkaClusterIndexHeap() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("topics", "100");
        defaults.put("partitions", "100");
        Map<String, String> opts = Args.parse(args, defaults);
        int topics = Args.intOpt(opts, "topics");
        int partitions = Args.intOpt(opts, "partitions");
        List<Node> nodes = List.of(new Node(0, "127.0.0.1", 9092), new Node(1, "127.0.0.1", 9093),
                new Node(2, "127.0.0.1", 9094));
        Node[][] replicas = new Node[3][];
        for (int i = 0; i < 3; i++) {
            replicas[i] = new Node[] {nodes.get(i), nodes.get((i + 1) % 3), nodes.get((i + 2) % 3)};
        }
        Node[] none = new Node[0];
        List<PartitionInfo> infos = new ArrayList<>(topics * partitions);
        for (int t = 0; t < topics; t++) {
            String name = String.format(Locale.ROOT, "topic-%05d", t);
            for (int p = 0; p < partitions; p++) {
                Node[] r = replicas[(t + p) % 3];
                infos.add(new PartitionInfo(name, p, r[0], r, r, none));
            }
        }
        Map<String, long[]> before = RetainedHeap.histogram();
        kept = new Cluster("p5k", nodes, infos, Set.of(), Set.of());
        Map<String, long[]> grown = RetainedHeap.diff(before, RetainedHeap.histogram());
        long bytes = grown.values().stream().mapToLong(v -> v[1]).sum();
        long n = (long) topics * partitions;
        System.out.printf(Locale.ROOT, "Kafka Cluster index over %,d PartitionInfos (%d topics x %d, 3 nodes; %s): "
                        + "%,d B = %.1f B/partition (the PartitionInfos themselves not counted); load %s%n", n, topics,
                partitions, Args.jvm(), bytes, bytes / (double) n, Args.load());
        grown.entrySet().stream().filter(e -> e.getValue()[1] >= 1024)
                .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
                .forEach(e -> System.out.printf(Locale.ROOT, "  %,12d B %,9d instances  %s%n", e.getValue()[1],
                        e.getValue()[0], e.getKey()));
        System.out.println(infos.size() == n && kept != null ? "" : "?"); // both alive to the end
    }
}
