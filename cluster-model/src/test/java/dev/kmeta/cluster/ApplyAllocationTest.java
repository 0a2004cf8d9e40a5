package dev.kmeta.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Shows that {@link Cluster#apply} of a one-topic delta to a 10,000-topic snapshot allocates in proportion to the
 * change, not to the cluster, by reading this thread's allocation counter around the apply. A copy of the name and
 * id maps (what apply used to do) is about 770 KB at this size; the bound, 64 KB, is far below it and far above
 * what the change itself needs (a few KB), so neither JIT state nor the JVM's own allocations make it flaky.
 */
class ApplyAllocationTest {
    private static final int TOPICS = 10_000;
    private static final long BOUND_BYTES = 64 * 1024;

    private com.sun.management.ThreadMXBean threads;
    private Cluster big;
    private ClusterDelta[] oneTopicDeltas;

    @BeforeEach
    void setUp() {
        threads = AllocationCounter.require();

        ClusterDelta.Builder b = ClusterDelta.builder().nodes(Fixtures.nodes(0, 1, 2)).clusterId("c").controllerId(0);
        for (int t = 0; t < TOPICS; t++) {
            b.putTopic(Fixtures.topic(name(t), Fixtures.id(t), t % 3, (t + 1) % 3));
        }
        big = Cluster.empty().apply(b.build());
        oneTopicDeltas = new ClusterDelta[20];
        for (int i = 0; i < oneTopicDeltas.length; i++) {
            int t = i * 499;
            oneTopicDeltas[i] = ClusterDelta.builder().nodes(Fixtures.nodes(0, 1, 2)).clusterId("c").controllerId(0)
                    .putTopic(Fixtures.topic(name(t), Fixtures.id(t), (t + 2) % 3, t % 3)).build();
        }
    }

    private static String name(int t) {
        return String.format("orders-%05d", t);
    }

    /** The fewest bytes any one of the deltas' applies allocated; each result is checked. */
    private long fewestBytesPerApply() {
        long fewest = Long.MAX_VALUE;
        for (ClusterDelta delta : oneTopicDeltas) {
            long before = threads.getCurrentThreadAllocatedBytes();
            Cluster next = big.apply(delta);
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            String changed = delta.topics().keySet().iterator().next();
            assertSame(delta.topics().get(changed), next.topic(changed));
            assertEquals(TOPICS, next.topicNames().size());
            fewest = Math.min(fewest, allocated);
        }
        return fewest;
    }

    @Test
    void aOneTopicApplyOnTenThousandTopicsAllocatesFarLessThanACopyOfTheMaps() {
        fewestBytesPerApply(); // warm up: class loading and the first interpreted runs
        long fewest = fewestBytesPerApply();
        assertTrue(fewest < BOUND_BYTES, fewest + " bytes allocated by a one-topic apply on " + TOPICS + " topics");
    }

    @Test
    void theCounterSeesACopyOfTheNameMap() {
        Map<String, TopicMetadata> byName = new HashMap<>();
        for (String name : big.topicNames()) {
            byName.put(name, big.topic(name));
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        Map<String, TopicMetadata> copy = new HashMap<>(byName);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals(TOPICS, copy.size());
        assertTrue(allocated > BOUND_BYTES, "one map copy allocated only " + allocated + " bytes");
    }
}
