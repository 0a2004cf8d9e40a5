package dev.kmeta.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A partition whose ISR equals its replica list keeps one array for both (nearly every partition of a healthy
 * cluster): per partition one {@code int[]} copy allocated and retained, not two. Checked through the thread's
 * allocation counter - the arrays are never exposed (every accessor copies), so sharing is invisible otherwise.
 */
class SharedIsrTest {
    private static final int PARTITIONS = 10_000;

    @Test
    void anIsrEqualToTheReplicasSharesTheirCopy() {
        com.sun.management.ThreadMXBean threads = AllocationCounter.require();
        int[] replicas = {1, 2, 3};
        int[] isrEqual = {1, 2, 3};
        int[] isrShort = {1, 2};
        PartitionMetadata[] keep = new PartitionMetadata[PARTITIONS];
        build(keep, replicas, isrEqual); // warm-up: the same code, compiled or not, on both measured runs
        build(keep, replicas, isrShort);

        long shared = fewestBytes(threads, keep, replicas, isrEqual);
        long separate = fewestBytes(threads, keep, replicas, isrShort);

        // Shared: the partition and one int[3] copy. Separate: the same plus an int[2] copy (24 bytes) per partition.
        // Copying the equal ISR too would make the "shared" run the costlier one (an int[3], 32 bytes, instead).
        assertTrue(separate - shared >= PARTITIONS * 16L, "shared " + shared + " B, separate " + separate + " B for "
                + PARTITIONS + " partitions: an equal ISR was copied on its own");
        PartitionMetadata p = keep[0];
        assertArrayEquals(replicas, p.replicas());
        assertArrayEquals(isrShort, p.inSyncReplicas());
        PartitionMetadata q = new PartitionMetadata("t", 0, 1, 0, replicas, isrEqual, null, PartitionMetadata.NONE);
        assertArrayEquals(isrEqual, q.inSyncReplicas());
        assertEquals(3, q.inSyncReplicaCount());
        assertEquals(new PartitionMetadata("t", 0, 1, 0, replicas, isrEqual.clone(), null, PartitionMetadata.NONE), q);
    }

    private static long fewestBytes(com.sun.management.ThreadMXBean threads, PartitionMetadata[] keep, int[] replicas,
                                    int[] isr) {
        long fewest = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            build(keep, replicas, isr);
            fewest = Math.min(fewest, threads.getCurrentThreadAllocatedBytes() - before);
        }
        return fewest;
    }

    private static void build(PartitionMetadata[] keep, int[] replicas, int[] isr) {
        for (int i = 0; i < keep.length; i++) {
            keep[i] = new PartitionMetadata("t", i, 1, 0, replicas, isr, null, PartitionMetadata.NONE);
        }
    }
}
