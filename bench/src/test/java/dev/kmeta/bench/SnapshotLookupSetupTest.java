package dev.kmeta.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kmeta.cluster.PartitionMetadata;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Checks that {@link SnapshotLookup}'s setup and benchmarks do the lookups its documentation describes. */
class SnapshotLookupSetupTest {
    private static SnapshotLookup setUp(int partitions, String names) {
        SnapshotLookup bench = new SnapshotLookup();
        bench.partitions = partitions;
        bench.names = names;
        bench.setUp();
        return bench;
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashed", "numbered"})
    void queriesAreEqualCopiesOfKnownTopicsAndEveryBenchmarkSeesTheSameData(String names) {
        SnapshotLookup bench = setUp(100_000, names);
        assertEquals(1000, bench.cluster.topicNames().size());
        assertEquals(bench.cluster.topicNames(), bench.hashMap.keySet());
        long epochs = 0;
        long leaders = 0;
        long leaderSums = 0;
        for (int i = 0; i < SnapshotLookup.QUERIES; i++) {
            String q = bench.queryTopics[i];
            assertNotSame(bench.cluster.topic(q).name(), q, "queries must not be the snapshot's own strings");
            PartitionMetadata p = bench.cluster.partition(q, bench.queryPartitions[i]);
            epochs += p.leaderEpoch();
            leaders += p.leaderId();
            leaderSums += 9092 + p.leaderId();
        }
        assertEquals(5L * SnapshotLookup.QUERIES, epochs);
        assertEquals(epochs, bench.topicThenPartition());
        assertEquals(epochs, bench.hashMapBaseline());
        assertEquals(leaders, bench.partition());
        assertEquals(leaderSums, bench.leader());
    }

    @ParameterizedTest
    @CsvSource({"150, hashed", "0, hashed", "1000, other"})
    void rejectsShapesItDoesNotDescribe(int partitions, String names) {
        assertThrows(IllegalArgumentException.class, () -> setUp(partitions, names));
    }
}
