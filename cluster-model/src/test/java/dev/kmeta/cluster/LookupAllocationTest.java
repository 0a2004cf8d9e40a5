package dev.kmeta.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Shows that the send-path lookups allocate nothing, by reading this thread's allocation counter around a warm
 * loop of 100,000 rounds of lookups. The bound is a few KB so that a stray allocation by the JVM itself cannot make
 * it flaky, while one allocation per round (at least 1.6 MB) cannot pass.
 */
class LookupAllocationTest {
    private static final int ROUNDS = 100_000;
    private static final long BOUND_BYTES = 4096;

    private com.sun.management.ThreadMXBean threads;
    private Cluster cluster;
    private String[] names;
    private UUID[] ids;
    /** Where the lookups' results go, so that they escape. */
    private final Object[] escape = new Object[7];

    @BeforeEach
    void setUp() {
        threads = AllocationCounter.require();

        ClusterDelta.Builder b = ClusterDelta.builder().nodes(Fixtures.nodes(0, 1, 2, 3, 4, 5)).controllerId(0);
        List<String> nameList = new ArrayList<>();
        List<UUID> idList = new ArrayList<>();
        for (int t = 0; t < 32; t++) {
            String name = String.format("orders-%05d", t);
            int[] leaders = new int[16];
            for (int p = 0; p < leaders.length; p++) {
                leaders[p] = p == 3 ? -1 : (t + p) % 8;
            }
            b.putTopic(Fixtures.topic(name, Fixtures.id(t), leaders));
            nameList.add(name);
            idList.add(Fixtures.id(t));
        }
        cluster = Cluster.empty().apply(b.build());
        names = nameList.toArray(new String[0]);
        ids = idList.toArray(new UUID[0]);
    }

    /**
     * One round per iteration: every hot lookup once, folded into a checksum so none can be skipped, and every
     * returned object stored into {@link #escape} so that escape analysis cannot hide an allocation.
     */
    private long lookups(int rounds) {
        Object[] out = escape;
        long sum = 0;
        for (int i = 0; i < rounds; i++) {
            int t = i & 31;
            String name = names[t];
            int p = i & 15;
            sum += cluster.partitionCount(name);
            PartitionMetadata partition = cluster.partition(name, p);
            out[0] = partition;
            sum += partition.leaderEpoch();
            Node leader = cluster.leader(name, p);
            out[1] = leader;
            sum += leader == null ? -1 : leader.id();
            List<PartitionMetadata> available = cluster.availablePartitions(name);
            out[2] = available;
            sum += available.size();
            Node node = cluster.node(p & 7);
            out[3] = node;
            sum += node == null ? 0 : 1;
            UUID id = cluster.topicId(name);
            out[4] = id;
            sum += ids[t].equals(id) ? 1 : 0;
            String topicName = cluster.topicName(ids[t]);
            out[5] = topicName;
            sum += topicName.length();
            TopicMetadata topic = cluster.topic(name);
            out[6] = topic;
            sum += topic.partition(p).leaderId();
            if (cluster.leader(topic, p) != leader) { // the same node, found from the topic object
                throw new AssertionError("leader(topic, p) of " + name + "-" + p);
            }
        }
        return sum;
    }

    @Test
    void hotLookupsAllocateNothing() {
        long expected = lookups(ROUNDS);
        for (int warm = 0; warm < 10; warm++) {
            assertEquals(expected, lookups(ROUNDS));
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        long sum = lookups(ROUNDS);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals(expected, sum);
        assertTrue(allocated < BOUND_BYTES, allocated + " bytes allocated by " + ROUNDS + " rounds of lookups");
    }

    @Test
    void theCounterSeesAnAllocation() {
        long before = threads.getCurrentThreadAllocatedBytes();
        List<PartitionMetadata> copy = new ArrayList<>(cluster.topic(names[0]).partitions());
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals(16, copy.size());
        assertTrue(allocated >= 16 * 4, "the meter missed " + allocated + " bytes");
    }

    @Test
    void checksumIsTheOneTheFixtureImplies() {
        // Round i looks at topic i & 31, partition i & 15: predictable from the fixture, so the loop is real work.
        long sum = 0;
        for (int i = 0; i < 64; i++) {
            int t = i & 31;
            int p = i & 15;
            int leader = p == 3 ? -1 : (t + p) % 8;
            int known = leader >= 0 && leader <= 5 ? leader : -1;
            long available = 0;
            for (int q = 0; q < 16; q++) {
                int l = q == 3 ? -1 : (t + q) % 8;
                available += l >= 0 && l <= 5 ? 1 : 0;
            }
            sum += 16 + (10 + p) + known + available + ((p & 7) <= 5 ? 1 : 0) + 1 + names[t].length() + known;
        }
        assertEquals(sum, lookups(64));
    }
}
