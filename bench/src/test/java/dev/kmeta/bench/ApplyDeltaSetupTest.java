package dev.kmeta.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Checks that {@link ApplyDelta}'s setup builds the cluster and the deltas its documentation describes. */
class ApplyDeltaSetupTest {
    private static ApplyDelta setUp(int partitions, String names) {
        ApplyDelta bench = new ApplyDelta();
        bench.partitions = partitions;
        bench.names = names;
        bench.setUp();
        return bench;
    }

    @ParameterizedTest
    @CsvSource({"10000, hashed", "10000, numbered", "100000, numbered"})
    void theSnapshotHasTheClaimedShape(int partitions, String names) {
        Cluster c = setUp(partitions, names).snapshot;
        assertEquals(partitions / 100, c.topicNames().size());
        assertEquals(6, c.nodes().size());
        assertEquals(ApplyDelta.CLUSTER_ID, c.clusterId());
        int total = 0;
        for (String name : c.topicNames()) {
            TopicMetadata t = c.topic(name);
            assertEquals(100, t.partitionCount(), name);
            assertEquals(100, t.availablePartitions().size(), name);
            assertSame(t, c.topic(t.topicId()), name);
            total += t.partitionCount();
            for (PartitionMetadata p : t.partitions()) {
                assertEquals(3, p.replicaCount());
                assertEquals(3, new HashSet<>(List.of(p.replica(0), p.replica(1), p.replica(2))).size());
                assertEquals(p.replica(0), p.leaderId());
                assertEquals(5, p.leaderEpoch());
            }
        }
        assertEquals(partitions, total);
        boolean numbered = c.topicNames().stream().allMatch(n -> n.matches("orders-\\d{5}"));
        assertEquals("numbered".equals(names), numbered);
    }

    @ParameterizedTest
    @CsvSource({"10000, hashed", "10000, numbered"})
    void bothFullBuildsRebuildTheSnapshotFromFreshObjects(int partitions, String names) {
        ApplyDelta bench = setUp(partitions, names);
        for (Cluster rebuilt : List.of(bench.fullBuild(), bench.fullBuildPrebuilt())) {
            assertEquals(1, rebuilt.version());
            assertTrue(rebuilt.contentEquals(bench.snapshot));
            for (String name : bench.snapshot.topicNames()) {
                assertNotSame(bench.snapshot.topic(name), rebuilt.topic(name), name);
            }
        }
        Cluster again = bench.fullBuild();
        String any = bench.snapshot.topicNames().iterator().next();
        assertNotSame(again.topic(any), bench.fullBuild().topic(any), "fullBuild builds its topics each time");
        assertNotSame(again.topic(any).partition(0), bench.fullBuild().topic(any).partition(0));
    }

    @ParameterizedTest
    @CsvSource({"10000, hashed", "10000, numbered"})
    void theRawAndPrebuiltOneTopicChangesAreTheSameChange(int partitions, String names) {
        ApplyDelta bench = setUp(partitions, names);
        for (int i = 0; i < ApplyDelta.DELTA_POOL; i++) {
            Cluster raw = bench.oneTopicChange();
            Cluster prebuilt = bench.snapshot.apply(bench.oneTopicDeltas[i]);
            assertTrue(raw.contentEquals(prebuilt), "delta " + i);
            String name = bench.changedTopics[i];
            assertNotSame(prebuilt.topic(name), raw.topic(name), "the raw change builds its topic");
            assertEquals(prebuilt.topic(name), raw.topic(name));
        }
    }

    @ParameterizedTest
    @CsvSource({"10000, hashed", "10000, numbered", "100000, hashed"})
    void eachOneTopicDeltaChangesExactlyOneTopic(int partitions, String names) {
        ApplyDelta bench = setUp(partitions, names);
        Cluster before = bench.snapshot;
        Set<String> changedTopics = new HashSet<>();
        for (int i = 0; i < ApplyDelta.DELTA_POOL; i++) {
            Cluster after = bench.oneTopicChangePrebuilt();
            assertEquals(before.version() + 1, after.version());
            assertTrue(after.contentEquals(before.apply(bench.oneTopicDeltas[i])));
            int differing = 0;
            for (String name : before.topicNames()) {
                if (before.topic(name) != after.topic(name)) {
                    differing++;
                    assertEquals(bench.changedTopics[i], name);
                }
            }
            assertEquals(1, differing, "delta " + i);
            assertEquals(before.topicNames(), after.topicNames());
            assertEquals(before.nodes(), after.nodes());
            String name = bench.changedTopics[i];
            changedTopics.add(name);
            for (int p = 0; p < 100; p++) {
                PartitionMetadata old = before.partition(name, p);
                PartitionMetadata now = after.partition(name, p);
                assertEquals(old.replica(1), now.leaderId(), name + "-" + p);
                assertEquals(old.leaderEpoch() + 1, now.leaderEpoch(), name + "-" + p);
            }
            assertFalse(after.contentEquals(before));
        }
        assertEquals(Math.min(ApplyDelta.DELTA_POOL, partitions / 100), changedTopics.size());
    }

    @ParameterizedTest
    @CsvSource({"150, hashed", "0, hashed", "1000, other"})
    void rejectsShapesItDoesNotDescribe(int partitions, String names) {
        assertThrows(IllegalArgumentException.class, () -> setUp(partitions, names));
    }
}
