package dev.kmeta.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.cluster.internal.OwnedPartitions;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;

/**
 * {@link OwnedPartitions}: the public constructor's partition, without its copies of the arrays handed over.
 */
class OwnedPartitionsTest {
    private static final int PARTITIONS = 10_000;

    @Test
    void buildsWhatTheConstructorBuilds() {
        int[][] lists = {null, {}, {1, 2, 3}, {1, 2}, {3, 2, 1}, {7}};
        for (int[] replicas : lists) {
            for (int[] isr : lists) {
                for (int[] offline : new int[][] {null, {}, {2}}) {
                    for (int leader : new int[] {-7, -1, 0, 2}) {
                        for (int epoch : new int[] {-3, -1, 0, 9}) {
                            PartitionMetadata expected = new PartitionMetadata("t", 4, leader, epoch, replicas, isr,
                                    offline, (short) 5);
                            PartitionMetadata owned = OwnedPartitions.of("t", 4, leader, epoch, copy(replicas),
                                    copy(isr), copy(offline), (short) 5);
                            assertEquals(expected, owned);
                            assertEquals(expected.toString(), owned.toString());
                            assertEquals(expected.leaderId(), owned.leaderId());
                            assertEquals(expected.leaderEpoch(), owned.leaderEpoch());
                            assertArrayEquals(expected.replicas(), owned.replicas());
                            assertArrayEquals(expected.inSyncReplicas(), owned.inSyncReplicas());
                            assertArrayEquals(expected.offlineReplicas(), owned.offlineReplicas());
                        }
                    }
                }
            }
        }
        assertThrows(IllegalArgumentException.class,
                () -> OwnedPartitions.of("t", -1, 0, 0, null, null, null, PartitionMetadata.NONE));
    }

    @Test
    void oneArrayMayBeBothReplicasAndIsr() {
        int[] ids = {4, 5, 6};
        PartitionMetadata p = OwnedPartitions.of("t", 0, 4, 1, ids, ids, null, PartitionMetadata.NONE);
        assertArrayEquals(new int[] {4, 5, 6}, p.replicas());
        assertArrayEquals(new int[] {4, 5, 6}, p.inSyncReplicas());
        assertEquals(new PartitionMetadata("t", 0, 4, 1, new int[] {4, 5, 6}, new int[] {4, 5, 6}, null,
                PartitionMetadata.NONE), p);
    }

    @Test
    void theArraysAreTakenNotCopied() {
        com.sun.management.ThreadMXBean threads = AllocationCounter.require();
        PartitionMetadata[] keep = new PartitionMetadata[PARTITIONS];
        int[][] replicas = new int[PARTITIONS][];
        for (int i = 0; i < PARTITIONS; i++) {
            replicas[i] = new int[] {i % 6, (i + 1) % 6, (i + 2) % 6};
        }
        build(keep, replicas, true); // warm-up: the same code, compiled or not, on both measured runs
        build(keep, replicas, false);
        long owned = fewestBytes(threads, keep, replicas, true);
        long copied = fewestBytes(threads, keep, replicas, false);
        // Copied: the partition and an int[3] copy (32 bytes) each; owned: the partition alone.
        assertTrue(copied - owned >= PARTITIONS * 24L, "owned " + owned + " B, copied " + copied + " B for "
                + PARTITIONS + " partitions: the owned arrays were copied");
        assertArrayEquals(new int[] {1, 2, 3}, keep[1].replicas());
        assertArrayEquals(new int[] {1, 2, 3}, keep[1].inSyncReplicas());
    }

    private static long fewestBytes(com.sun.management.ThreadMXBean threads, PartitionMetadata[] keep,
                                    int[][] replicas, boolean owned) {
        long fewest = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            build(keep, replicas, owned);
            fewest = Math.min(fewest, threads.getCurrentThreadAllocatedBytes() - before);
        }
        return fewest;
    }

    private static void build(PartitionMetadata[] keep, int[][] replicas, boolean owned) {
        for (int i = 0; i < keep.length; i++) {
            int[] r = replicas[i];
            keep[i] = owned ? OwnedPartitions.of("t", i, r[0], 0, r, r, null, PartitionMetadata.NONE)
                    : new PartitionMetadata("t", i, r[0], 0, r, r, null, PartitionMetadata.NONE);
        }
    }

    @Test
    void theFactoryIsInstalledOnceOnly() {
        PartitionMetadata.of("t", 0, 1, 1); // PartitionMetadata initialized: its factory is in
        assertThrows(IllegalStateException.class, () -> OwnedPartitions.install(
                (topic, partition, leader, epoch, replicas, isr, offline, error) -> null));
        assertEquals(1, OwnedPartitions.of("t", 0, 1, 1, null, null, null, PartitionMetadata.NONE).leaderId());
    }

    /** In a JVM where nothing made a partition yet, the factory is there on first use (class-init order). */
    @Test
    void worksBeforeAnyPartitionExists() throws Exception {
        URL classes = OwnedPartitions.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader fresh = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader())) {
            Class<?> owned = Class.forName(OwnedPartitions.class.getName(), true, fresh);
            Method of = owned.getMethod("of", String.class, int.class, int.class, int.class, int[].class,
                    int[].class, int[].class, short.class);
            Object p = of.invoke(null, "t", 3, 2, 7, new int[] {2, 0}, new int[] {2}, null, (short) 0);
            assertEquals(fresh, p.getClass().getClassLoader());
            assertEquals("t-3(leader=2, epoch=7, replicas=[2, 0], isr=[2])", p.toString());
        }
    }

    private static int[] copy(int[] ids) {
        return ids == null ? null : ids.clone();
    }
}
