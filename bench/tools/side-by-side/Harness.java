package probe;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * The lookup loop of the side-by-side comparison, compiled against cluster-model's public API and loaded once per
 * version of cluster-model (see Driver). -Dtopics=N (100 partitions each), -Dnumbered=true for orders-00000 names.
 * Not thread-safe; one instance per class loader, used by the driver's one thread.
 */
public class Harness implements IntFunction<LongSupplier> {
    private final Cluster cluster;
    private final String[] queries = new String[1024];
    private final int[] partitions = new int[1024];

    public Harness() {
        boolean numbered = Boolean.getBoolean("numbered");
        int topics = Integer.getInteger("topics", 1000);
        Random random = new Random(42);
        String[] names = new String[topics];
        ClusterDelta.Builder b = ClusterDelta.builder()
                .nodes(List.of(new Node(0, "a", 1), new Node(1, "b", 1), new Node(2, "c", 1)));
        for (int t = 0; t < topics; t++) {
            names[t] = numbered ? String.format("orders-%05d", t) : "topic-" + Long.toHexString(random.nextLong());
            List<PartitionMetadata> parts = new ArrayList<>();
            for (int p = 0; p < 100; p++) {
                parts.add(new PartitionMetadata(names[t], p, (t + p) % 3, 5, new int[] {0, 1, 2},
                        new int[] {0, 1, 2}, null, (short) 0));
            }
            b.putTopic(TopicMetadata.of(names[t], new UUID(t, 7), false, (short) 0, parts));
        }
        cluster = Cluster.empty().apply(b.build());
        for (int i = 0; i < queries.length; i++) {
            queries[i] = new String(names[random.nextInt(topics)].toCharArray());
            partitions[i] = random.nextInt(100);
        }
    }

    private long topicThenPartition() {
        long sum = 0;
        for (int i = 0; i < queries.length; i++) {
            sum += cluster.topic(queries[i]).partition(partitions[i]).leaderEpoch();
        }
        return sum;
    }

    private long leader() {
        long sum = 0;
        for (int i = 0; i < queries.length; i++) {
            Node n = cluster.leader(queries[i], partitions[i]);
            sum += n.id() + n.port();
        }
        return sum;
    }

    /** 0: topic(name).partition(p); 1: leader(name, p). */
    @Override
    public LongSupplier apply(int which) {
        return which == 0 ? this::topicThenPartition : this::leader;
    }
}
