package dev.kmeta.cluster;

import static dev.kmeta.cluster.Fixtures.id;
import static dev.kmeta.cluster.Fixtures.indexes;
import static dev.kmeta.cluster.Fixtures.leaders;
import static dev.kmeta.cluster.Fixtures.partition;
import static dev.kmeta.cluster.Fixtures.topic;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class TopicMetadataTest {
    @Test
    void indexesPartitionsGivenInAnyOrder() {
        TopicMetadata t = TopicMetadata.of("t", id(1), true, (short) 0,
                List.of(partition("t", 2, 2), partition("t", 0, 0), partition("t", 1, 1)));
        assertEquals("t", t.name());
        assertEquals(id(1), t.topicId());
        assertTrue(t.isInternal());
        assertEquals(3, t.partitionCount());
        for (int i = 0; i < 3; i++) {
            assertEquals(i, t.partition(i).partition());
            assertEquals(i, t.partition(i).leaderId());
        }
        assertNull(t.partition(3));
        assertNull(t.partition(-1));
        assertNull(t.partition(Integer.MIN_VALUE));
    }

    @Test
    void anEmptyTopicHasNoPartitions() {
        TopicMetadata t = TopicMetadata.of("t", id(1), false, (short) 3, List.of());
        assertEquals(0, t.partitionCount());
        assertNull(t.partition(0));
        assertTrue(t.availablePartitions().isEmpty());
        assertTrue(t.partitions().isEmpty());
        assertEquals(3, t.errorCode());
    }

    @Test
    void gapsAreFilledWithLeaderlessPlaceholders() {
        TopicMetadata t = TopicMetadata.of("t", List.of(partition("t", 0, 0), partition("t", 1, 1),
                partition("t", 4, 2)));
        assertEquals(5, t.partitionCount());
        for (int gap : new int[] {2, 3}) {
            PartitionMetadata p = t.partition(gap);
            assertEquals(gap, p.partition());
            assertEquals("t", p.topic());
            assertFalse(p.hasLeader());
            assertEquals(PartitionMetadata.LEADER_NOT_AVAILABLE, p.errorCode());
        }
        assertArrayEquals(new int[] {0, 1, 4}, indexes(t.availablePartitions()));
    }

    @Test
    void availablePartitionsAreThoseWithALeaderInIndexOrder() {
        TopicMetadata t = topic("t", 3, -1, 4, -1, 5);
        assertArrayEquals(new int[] {0, 2, 4}, indexes(t.availablePartitions()));
        assertSame(t.availablePartitions(), t.availablePartitions(), "computed once");
        assertArrayEquals(new int[] {0, 1, 2, 3, 4}, indexes(t.partitions()));
        TopicMetadata allLed = topic("u", 0, 1);
        assertArrayEquals(new int[] {0, 1}, indexes(allLed.availablePartitions()));
    }

    @Test
    void listsAreUnmodifiable() {
        TopicMetadata t = topic("t", 0, -1);
        assertThrows(UnsupportedOperationException.class, () -> t.availablePartitions().clear());
        assertThrows(UnsupportedOperationException.class, () -> t.partitions().set(0, null));
        TopicMetadata allLed = topic("u", 0, 1);
        assertThrows(UnsupportedOperationException.class,
                () -> allLed.availablePartitions().set(0, partition("u", 0, 5)));
        assertEquals(0, allLed.partition(0).leaderId());
    }

    @Test
    void rejectsNegativeDuplicateAndForeignPartitions() {
        assertThrows(IllegalArgumentException.class, () -> TopicMetadata.of("t", List.of(PartitionMetadata.of(
                "t", -1, 0, 0))));
        IllegalArgumentException dup = assertThrows(IllegalArgumentException.class,
                () -> TopicMetadata.of("t", List.of(partition("t", 0, 0), partition("t", 1, 1),
                        partition("t", 0, 2))));
        assertTrue(dup.getMessage().contains("given twice"), dup.getMessage());
        IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
                () -> TopicMetadata.of("t", List.of(partition("t", 0, 0), partition("u", 1, 1))));
        assertTrue(foreign.getMessage().contains("u"), foreign.getMessage());
        assertThrows(NullPointerException.class, () -> TopicMetadata.of(null, List.of()));
    }

    @Test
    void rejectsAnIndexFarBeyondThePartitionsGivenNamingTopicAndIndex() {
        for (int index : new int[] {Integer.MAX_VALUE, 65_537, 1_000_000}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> TopicMetadata.of("huge", List.of(PartitionMetadata.of("huge", index, 0, 0))));
            assertTrue(e.getMessage().contains("huge") && e.getMessage().contains(String.valueOf(index)),
                    e.getMessage());
        }
        IllegalArgumentException two = assertThrows(IllegalArgumentException.class, () -> TopicMetadata.of("t",
                List.of(partition("t", 0, 0), PartitionMetadata.of("t", 65_538, 0, 0))));
        assertTrue(two.getMessage().contains("topic t") && two.getMessage().contains("65538"), two.getMessage());
    }

    @Test
    void acceptsAnIndexJustBelowThePartitionsGivenPlus65536() {
        TopicMetadata one = TopicMetadata.of("t", List.of(PartitionMetadata.of("t", 65_536, 0, 0)));
        assertEquals(65_537, one.partitionCount());
        assertEquals(PartitionMetadata.LEADER_NOT_AVAILABLE, one.partition(65_535).errorCode());
        assertArrayEquals(new int[] {65_536}, indexes(one.availablePartitions()));
        TopicMetadata two = TopicMetadata.of("t", List.of(partition("t", 0, 0), PartitionMetadata.of("t", 65_537,
                1, 0)));
        assertEquals(65_538, two.partitionCount());
    }

    @Test
    void withPartitionRejectsAnIndexAtOrBeyondTheCountPlus65536() {
        TopicMetadata t = topic("t", 0, 1);
        for (int index : new int[] {Integer.MAX_VALUE, 65_538}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> t.withPartition(PartitionMetadata.of("t", index, 0, 0)));
            assertTrue(e.getMessage().contains("topic t") && e.getMessage().contains(String.valueOf(index)),
                    e.getMessage());
        }
        assertEquals(65_538, t.withPartition(PartitionMetadata.of("t", 65_537, 0, 0)).partitionCount());
        assertEquals(2, t.partitionCount());
    }

    @Test
    void withPartitionReplacesOneAndLeavesTheOriginalAlone() {
        TopicMetadata t = topic("t", 0, 1, 2);
        TopicMetadata moved = t.withPartition(PartitionMetadata.of("t", 1, 5, 40));
        assertArrayEquals(new int[] {0, 5, 2}, leaders(moved));
        assertEquals(40, moved.partition(1).leaderEpoch());
        assertSame(t.partition(0), moved.partition(0));
        assertArrayEquals(new int[] {0, 1, 2}, leaders(t));
        TopicMetadata leaderless = t.withPartition(PartitionMetadata.of("t", 0, -1, 3));
        assertArrayEquals(new int[] {1, 2}, indexes(leaderless.availablePartitions()));
    }

    @Test
    void withPartitionGrowsTheTopicFillingGaps() {
        TopicMetadata t = TopicMetadata.of("t", id(4), false, (short) 0, List.of(partition("t", 0, 0),
                partition("t", 1, 1)));
        TopicMetadata grown = t.withPartition(partition("t", 4, 3));
        assertEquals(5, grown.partitionCount());
        assertEquals(2, t.partitionCount());
        assertArrayEquals(new int[] {0, 1, -1, -1, 3}, leaders(grown));
        assertEquals(PartitionMetadata.LEADER_NOT_AVAILABLE, grown.partition(2).errorCode());
        assertEquals(PartitionMetadata.LEADER_NOT_AVAILABLE, grown.partition(3).errorCode());
        assertArrayEquals(new int[] {0, 1, 4}, indexes(grown.availablePartitions()));
        assertEquals(id(4), grown.topicId());
        assertEquals(1, TopicMetadata.of("e", List.of()).withPartition(partition("e", 0, 0)).partitionCount());
        assertThrows(IllegalArgumentException.class, () -> t.withPartition(partition("u", 0, 0)));
    }

    @Test
    void withKnownLeadersDropsUnknownLeadersKeepingEpochs() {
        TopicMetadata t = topic("t", 0, 7, -1, 1);
        NodeIndex nodes = new NodeIndex(Fixtures.nodes(0, 1));
        TopicMetadata checked = t.withKnownLeaders(nodes);
        assertArrayEquals(new int[] {0, -1, -1, 1}, leaders(checked));
        assertEquals(11, checked.partition(1).leaderEpoch());
        assertArrayEquals(t.partition(1).replicas(), checked.partition(1).replicas());
        assertArrayEquals(new int[] {0, 3}, indexes(checked.availablePartitions()));
        assertSame(t.partition(0), checked.partition(0));
        TopicMetadata known = topic("k", 0, 1, -1);
        assertSame(known, known.withKnownLeaders(nodes), "nothing to drop: the very same object");
    }

    @Test
    void equalityCoversNameIdFlagsErrorAndPartitions() {
        TopicMetadata t = topic("t", id(1), 0, 1);
        assertEquals(t, topic("t", id(1), 0, 1));
        assertEquals(t.hashCode(), topic("t", id(1), 0, 1).hashCode());
        assertNotEquals(t, topic("u", id(1), 0, 1));
        assertNotEquals(t, topic("t", id(2), 0, 1));
        assertNotEquals(t, topic("t", 0, 1));
        assertNotEquals(t, topic("t", id(1), 0, 2));
        assertNotEquals(t, topic("t", id(1), 0, 1, 2));
        assertNotEquals(t, TopicMetadata.of("t", id(1), true, (short) 0, t.partitions()));
        assertNotEquals(t, TopicMetadata.of("t", id(1), false, (short) 3, t.partitions()));
        assertEquals(t, TopicMetadata.of("t", id(1), false, (short) 0, t.partitions()));
        assertNotEquals(t, "t");
    }

    @Test
    void toStringSummarizes() {
        assertEquals("Topic(t, id=" + id(1) + ", partitions=2, available=1)", topic("t", id(1), 0, -1).toString());
        assertEquals("Topic(t, partitions=0, available=0, error=3)",
                TopicMetadata.of("t", null, false, (short) 3, List.of()).toString());
    }
}
