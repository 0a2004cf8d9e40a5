package dev.kmeta.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PartitionMetadataTest {
    private static PartitionMetadata sample() {
        return new PartitionMetadata("t", 2, 4, 9, new int[] {4, 5, 6}, new int[] {4, 5}, new int[] {6},
                PartitionMetadata.NONE);
    }

    @Test
    void accessorsReturnWhatWasGiven() {
        PartitionMetadata p = sample();
        assertEquals("t", p.topic());
        assertEquals(2, p.partition());
        assertEquals(4, p.leaderId());
        assertTrue(p.hasLeader());
        assertEquals(9, p.leaderEpoch());
        assertEquals(PartitionMetadata.NONE, p.errorCode());
        assertArrayEquals(new int[] {4, 5, 6}, p.replicas());
        assertArrayEquals(new int[] {4, 5}, p.inSyncReplicas());
        assertArrayEquals(new int[] {6}, p.offlineReplicas());
        assertEquals(3, p.replicaCount());
        assertEquals(5, p.replica(1));
        assertEquals(2, p.inSyncReplicaCount());
        assertEquals(5, p.inSyncReplica(1));
    }

    @Test
    void negativeLeaderOrEpochMeansNone() {
        PartitionMetadata p = new PartitionMetadata("t", 0, -7, -3, null, null, null, (short) 6);
        assertEquals(PartitionMetadata.NO_LEADER, p.leaderId());
        assertFalse(p.hasLeader());
        assertEquals(PartitionMetadata.NO_EPOCH, p.leaderEpoch());
        assertEquals(6, p.errorCode());
        assertEquals(0, p.replicaCount());
        assertEquals(0, p.inSyncReplicaCount());
        assertArrayEquals(new int[0], p.offlineReplicas());
    }

    @Test
    void replicaArraysAreCopiedInAndOut() {
        int[] replicas = {1, 2, 3};
        int[] offline = {3};
        PartitionMetadata p = new PartitionMetadata("t", 0, 1, 0, replicas, replicas, offline, PartitionMetadata.NONE);
        replicas[0] = 99;
        offline[0] = 99;
        assertArrayEquals(new int[] {1, 2, 3}, p.replicas());
        assertArrayEquals(new int[] {1, 2, 3}, p.inSyncReplicas());
        assertArrayEquals(new int[] {3}, p.offlineReplicas());
        p.replicas()[1] = 99;
        p.inSyncReplicas()[1] = 99;
        p.offlineReplicas()[0] = 99;
        assertArrayEquals(new int[] {1, 2, 3}, p.replicas());
        assertArrayEquals(new int[] {1, 2, 3}, p.inSyncReplicas());
        assertArrayEquals(new int[] {3}, p.offlineReplicas());
    }

    @Test
    void aLeaderEpochIsAtLeastOnlyWhenThereIsOne() {
        PartitionMetadata p = PartitionMetadata.of("t", 0, 1, 5);
        assertTrue(p.hasLeaderEpochAtLeast(4));
        assertTrue(p.hasLeaderEpochAtLeast(5));
        assertFalse(p.hasLeaderEpochAtLeast(6));
        PartitionMetadata none = PartitionMetadata.of("t", 0, 1, PartitionMetadata.NO_EPOCH);
        assertFalse(none.hasLeaderEpochAtLeast(PartitionMetadata.NO_EPOCH), "no epoch is never at least one");
        assertFalse(none.hasLeaderEpochAtLeast(0));
    }

    @Test
    void rejectsNegativePartitionIndexAndNullTopic() {
        assertThrows(IllegalArgumentException.class, () -> PartitionMetadata.of("t", -1, 0, 0));
        assertThrows(IllegalArgumentException.class,
                () -> new PartitionMetadata("t", -2, 0, 0, null, null, null, PartitionMetadata.NONE));
        assertThrows(NullPointerException.class, () -> PartitionMetadata.of(null, 0, 0, 0));
    }

    @Test
    void withLeaderChangesLeaderAndEpochOnly() {
        PartitionMetadata p = sample();
        PartitionMetadata moved = p.withLeader(5, 10);
        assertEquals(5, moved.leaderId());
        assertEquals(10, moved.leaderEpoch());
        assertArrayEquals(p.replicas(), moved.replicas());
        assertArrayEquals(p.inSyncReplicas(), moved.inSyncReplicas());
        assertArrayEquals(p.offlineReplicas(), moved.offlineReplicas());
        assertEquals(p.errorCode(), moved.errorCode());
        assertEquals(4, p.leaderId(), "the original is unchanged");
        PartitionMetadata none = p.withLeader(-5, 9);
        assertFalse(none.hasLeader());
        assertEquals(9, none.leaderEpoch());
    }

    @Test
    void placeholderIsLeaderlessAndSaysLeaderNotAvailable() {
        PartitionMetadata p = PartitionMetadata.placeholder("t", 3);
        assertEquals(3, p.partition());
        assertFalse(p.hasLeader());
        assertEquals(PartitionMetadata.NO_EPOCH, p.leaderEpoch());
        assertEquals(PartitionMetadata.LEADER_NOT_AVAILABLE, p.errorCode());
    }

    @Test
    void equalityCoversEveryField() {
        PartitionMetadata p = sample();
        PartitionMetadata same = new PartitionMetadata("t", 2, 4, 9, new int[] {4, 5, 6}, new int[] {4, 5},
                new int[] {6}, PartitionMetadata.NONE);
        assertEquals(p, same);
        assertEquals(p.hashCode(), same.hashCode());
        assertEquals(PartitionMetadata.of("t", 0, 1, 2),
                new PartitionMetadata("t", 0, 1, 2, new int[0], null, null, PartitionMetadata.NONE));

        assertNotEquals(p, new PartitionMetadata("u", 2, 4, 9, new int[] {4, 5, 6}, new int[] {4, 5},
                new int[] {6}, PartitionMetadata.NONE));
        assertNotEquals(p, new PartitionMetadata("t", 3, 4, 9, new int[] {4, 5, 6}, new int[] {4, 5},
                new int[] {6}, PartitionMetadata.NONE));
        assertNotEquals(p, p.withLeader(5, 9));
        assertNotEquals(p, p.withLeader(4, 10));
        assertNotEquals(p, new PartitionMetadata("t", 2, 4, 9, new int[] {4, 6, 5}, new int[] {4, 5},
                new int[] {6}, PartitionMetadata.NONE));
        assertNotEquals(p, new PartitionMetadata("t", 2, 4, 9, new int[] {4, 5, 6}, new int[] {4},
                new int[] {6}, PartitionMetadata.NONE));
        assertNotEquals(p, new PartitionMetadata("t", 2, 4, 9, new int[] {4, 5, 6}, new int[] {4, 5},
                null, PartitionMetadata.NONE));
        assertNotEquals(p, new PartitionMetadata("t", 2, 4, 9, new int[] {4, 5, 6}, new int[] {4, 5},
                new int[] {6}, (short) 9));
        assertNotEquals(p, "t-2");
    }

    @Test
    void toStringShowsLeaderEpochAndReplicas() {
        assertEquals("t-2(leader=4, epoch=9, replicas=[4, 5, 6], isr=[4, 5], offline=[6])", sample().toString());
        assertEquals("t-1(leader=-1, epoch=-1, replicas=[], isr=[], error=5)",
                PartitionMetadata.placeholder("t", 1).toString());
    }
}
