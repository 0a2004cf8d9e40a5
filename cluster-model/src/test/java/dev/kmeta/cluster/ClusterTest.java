package dev.kmeta.cluster;

import static dev.kmeta.cluster.Fixtures.cluster;
import static dev.kmeta.cluster.Fixtures.id;
import static dev.kmeta.cluster.Fixtures.indexes;
import static dev.kmeta.cluster.Fixtures.leaders;
import static dev.kmeta.cluster.Fixtures.node;
import static dev.kmeta.cluster.Fixtures.nodes;
import static dev.kmeta.cluster.Fixtures.partition;
import static dev.kmeta.cluster.Fixtures.topic;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class ClusterTest {
    private static ClusterDelta.Builder delta() {
        return ClusterDelta.builder();
    }

    @Nested
    class Empty {
        private final Cluster empty = Cluster.empty();

        @Test
        void knowsNothing() {
            assertEquals(0, empty.version());
            assertNull(empty.clusterId());
            assertEquals(-1, empty.controllerId());
            assertNull(empty.controller());
            assertTrue(empty.nodes().isEmpty());
            assertNull(empty.node(0));
            assertTrue(empty.topicNames().isEmpty());
            assertTrue(empty.unauthorizedTopics().isEmpty());
            assertTrue(empty.invalidTopics().isEmpty());
            assertTrue(empty.partitionsOnNode(0).isEmpty());
        }

        @Test
        void everyTopicLookupSaysUnknown() {
            assertNull(empty.topic("t"));
            assertNull(empty.topic(id(1)));
            assertEquals(-1, empty.partitionCount("t"));
            assertNull(empty.partition("t", 0));
            assertNull(empty.leader("t", 0));
            assertTrue(empty.availablePartitions("t").isEmpty());
            assertNull(empty.topicId("t"));
            assertNull(empty.topicName(id(1)));
            assertNull(empty.topic((String) null));
            assertNull(empty.topic((UUID) null));
        }

        @Test
        void isASingleton() {
            assertSame(Cluster.empty(), Cluster.empty());
            assertTrue(empty.contentEquals(Cluster.empty()));
            assertFalse(empty.contentEquals(null));
        }
    }

    @Nested
    class Lookups {
        private final Cluster c = cluster(nodes(2, 0, 1), topic("orders", id(1), 0, 1, 2), topic("logs", 2, -1));

        @Test
        void partitionCountAndPartition() {
            assertEquals(3, c.partitionCount("orders"));
            assertEquals(2, c.partitionCount("logs"));
            assertEquals(-1, c.partitionCount("nope"));
            PartitionMetadata p = c.partition("orders", 1);
            assertEquals("orders", p.topic());
            assertEquals(1, p.partition());
            assertEquals(1, p.leaderId());
            assertEquals(11, p.leaderEpoch());
            assertArrayEquals(new int[] {1, 2}, p.replicas());
        }

        @Test
        void outOfRangePartitionsAreNull() {
            assertNull(c.partition("orders", 3));
            assertNull(c.partition("orders", -1));
            assertNull(c.partition("orders", Integer.MAX_VALUE));
            assertNull(c.leader("orders", 3));
            assertNull(c.leader("orders", -1));
            assertNull(c.partition("nope", 0));
            assertNull(c.leader("nope", 0));
        }

        @Test
        void leaderResolvesToTheSnapshotsNode() {
            for (int i = 0; i < 3; i++) {
                assertSame(c.node(i), c.leader("orders", i));
                assertEquals(node(i), c.leader("orders", i));
            }
            assertSame(c.node(2), c.leader("logs", 0));
        }

        @Test
        void leaderOfATopicObjectIsTheLeaderByName() {
            TopicMetadata orders = c.topic("orders");
            for (int i = -1; i <= 4; i++) {
                assertSame(c.leader("orders", i), c.leader(orders, i), "partition " + i);
            }
            assertSame(c.node(0), c.leader(orders, 0));
            assertNull(c.leader(orders, 3), "out of range");
            assertNull(c.leader(orders, Integer.MIN_VALUE));
            TopicMetadata logs = c.topic("logs");
            assertNull(c.leader(logs, 1), "leaderless");
            assertSame(c.leader("logs", 0), c.leader(logs, 0));
        }

        @Test
        void leaderlessPartitionHasNoLeaderAndIsNotAvailable() {
            PartitionMetadata p = c.partition("logs", 1);
            assertNotNull(p);
            assertFalse(p.hasLeader());
            assertEquals(11, p.leaderEpoch());
            assertNull(c.leader("logs", 1));
            assertArrayEquals(new int[] {0}, indexes(c.availablePartitions("logs")));
            assertArrayEquals(new int[] {0, 1, 2}, indexes(c.availablePartitions("orders")));
            assertTrue(c.availablePartitions("nope").isEmpty());
        }

        @Test
        void offlineReplicasAreReportedAndDoNotRemoveTheLeader() {
            PartitionMetadata p = new PartitionMetadata("o", 0, 0, 5, new int[] {0, 1, 2}, new int[] {0},
                    new int[] {1, 2}, PartitionMetadata.NONE);
            Cluster withOffline = c.apply(delta().putTopic(TopicMetadata.of("o", List.of(p))).build());
            assertArrayEquals(new int[] {1, 2}, withOffline.partition("o", 0).offlineReplicas());
            assertArrayEquals(new int[] {0}, withOffline.partition("o", 0).inSyncReplicas());
            assertSame(withOffline.node(0), withOffline.leader("o", 0));
            assertEquals(1, withOffline.availablePartitions("o").size());
        }

        @Test
        void nodesAreOrderedByIdAndUnmodifiable() {
            assertEquals(nodes(0, 1, 2), c.nodes());
            assertEquals(node(2), c.node(2));
            assertNull(c.node(3));
            assertNull(c.node(-1));
            assertThrows(UnsupportedOperationException.class, () -> c.nodes().add(node(9)));
        }

        @Test
        void topicNamesAreTheTopicsAndUnmodifiable() {
            assertEquals(Set.of("orders", "logs"), c.topicNames());
            assertThrows(UnsupportedOperationException.class, () -> c.topicNames().remove("orders"));
            assertEquals("orders", c.topic("orders").name());
            assertEquals(3, c.topic("orders").partitionCount());
        }
    }

    @Nested
    class UnknownLeaders {
        @Test
        void aLeaderOutsideTheNodeSetBecomesNoLeaderKeepingItsEpoch() {
            Cluster c = cluster(nodes(0, 1), topic("t", 0, 5, 1));
            PartitionMetadata p = c.partition("t", 1);
            assertEquals(PartitionMetadata.NO_LEADER, p.leaderId());
            assertEquals(11, p.leaderEpoch());
            assertArrayEquals(new int[] {5, 6}, p.replicas());
            assertNull(c.leader("t", 1));
            assertArrayEquals(new int[] {0, 2}, indexes(c.availablePartitions("t")));
            assertTrue(c.partitionsOnNode(5).isEmpty());
        }

        @Test
        void aTopicArrivingBeforeAnyNodeHasNoLeaders() {
            Cluster c = Cluster.empty().apply(delta().putTopic(topic("t", 0, 1)).build());
            assertArrayEquals(new int[] {-1, -1}, leaders(c.topic("t")));
            assertTrue(c.availablePartitions("t").isEmpty());
            assertEquals(2, c.partitionCount("t"));
        }

        @Test
        void leadersAreCheckedAgainstTheNodeSetOfTheSameDelta() {
            Cluster c = cluster(nodes(0)).apply(delta().nodes(nodes(0, 4)).putTopic(topic("t", 4, 0)).build());
            assertArrayEquals(new int[] {4, 0}, leaders(c.topic("t")));
            assertSame(c.node(4), c.leader("t", 0));
        }
    }

    @Nested
    class NodeSetReplaced {
        private final TopicMetadata a = topic("a", 0, 1);
        private final TopicMetadata b = topic("b", id(2), 2, 0, 2);
        private final TopicMetadata c = topic("c", 1);
        private final Cluster before = cluster(nodes(0, 1, 2), a, b, c);

        @Test
        void leadersOnARemovedBrokerLoseTheirLeader() {
            Cluster after = before.apply(delta().nodes(nodes(0, 1)).build());
            assertEquals(before.version() + 1, after.version());
            assertArrayEquals(new int[] {-1, 0, -1}, leaders(after.topic("b")));
            assertEquals(10, after.partition("b", 0).leaderEpoch());
            assertEquals(12, after.partition("b", 2).leaderEpoch());
            assertArrayEquals(new int[] {2, 3}, after.partition("b", 0).replicas());
            assertArrayEquals(new int[] {1}, indexes(after.availablePartitions("b")));
            assertNull(after.leader("b", 0));
            assertTrue(after.partitionsOnNode(2).isEmpty());
            assertNull(after.node(2));
            assertSame(after.topic("b"), after.topic(id(2)), "the id map follows the rewritten topic");
        }

        @Test
        void unaffectedTopicsStayTheSameObject() {
            Cluster after = before.apply(delta().nodes(nodes(0, 1)).build());
            assertSame(before.topic("a"), after.topic("a"));
            assertSame(before.topic("c"), after.topic("c"));
            assertNotSame(before.topic("b"), after.topic("b"));
        }

        @Test
        void theOldSnapshotIsUntouched() {
            before.apply(delta().nodes(nodes(0, 1)).build());
            assertEquals(1, before.version());
            assertArrayEquals(new int[] {2, 0, 2}, leaders(before.topic("b")));
            assertSame(before.node(2), before.leader("b", 0));
            assertEquals(nodes(0, 1, 2), before.nodes());
        }

        @Test
        void aMovedBrokerKeepsItsPartitionsAndResolvesToItsNewAddress() {
            Node moved = new Node(1, "broker-1.new", 9093);
            Cluster after = before.apply(delta().nodes(List.of(node(0), moved, node(2))).build());
            assertSame(before.topic("a"), after.topic("a"));
            assertSame(before.topic("b"), after.topic("b"));
            assertSame(before.topic("c"), after.topic("c"));
            assertEquals(moved, after.leader("a", 1));
            assertEquals("broker-1.new:9093", after.leader("c", 0).address());
            assertFalse(after.contentEquals(before));
        }

        @Test
        void anEqualNodeSetChangesNothing() {
            Cluster after = before.apply(delta().nodes(nodes(2, 1, 0)).build());
            assertEquals(2, after.version());
            assertTrue(after.contentEquals(before));
            for (String t : List.of("a", "b", "c")) {
                assertSame(before.topic(t), after.topic(t));
            }
        }

        @Test
        void aLeaderLostToANodeChangeComesBackOnlyWithTheTopicsNextMetadata() {
            // The documented rule: the snapshot keeps no leader it cannot resolve, so re-adding the broker
            // alone does not restore it; the next metadata for the topic does.
            Cluster without2 = before.apply(delta().nodes(nodes(0, 1)).build());
            Cluster back = without2.apply(delta().nodes(nodes(0, 1, 2)).build());
            assertArrayEquals(new int[] {-1, 0, -1}, leaders(back.topic("b")));
            Cluster refreshed = back.apply(delta().putTopic(b).build());
            assertArrayEquals(new int[] {2, 0, 2}, leaders(refreshed.topic("b")));
        }
    }

    @Nested
    class TopicIds {
        @Test
        void lookupsByIdAndName() {
            Cluster c = cluster(nodes(0), topic("t", id(7), 0), topic("noid", 0));
            assertSame(c.topic("t"), c.topic(id(7)));
            assertEquals("t", c.topicName(id(7)));
            assertEquals(id(7), c.topicId("t"));
            assertNull(c.topicId("noid"));
            assertNull(c.topicId("nope"));
            assertNull(c.topicName(id(8)));
            assertNull(c.topic(id(8)));
        }

        @Test
        void aRecreatedTopicReplacesTheOldIdMapping() {
            Cluster c1 = cluster(nodes(0, 1), topic("t", id(1), 0, 1));
            Cluster c2 = c1.apply(delta().putTopic(topic("t", id(2), 1)).build());
            assertNull(c2.topic(id(1)));
            assertNull(c2.topicName(id(1)));
            assertEquals("t", c2.topicName(id(2)));
            assertEquals(id(2), c2.topicId("t"));
            assertEquals(1, c2.partitionCount("t"));
            assertEquals("t", c1.topicName(id(1)), "the old snapshot keeps its mapping");
        }

        @Test
        void removingOrLosingTheIdDropsTheMapping() {
            Cluster c1 = cluster(nodes(0), topic("t", id(1), 0), topic("u", id(3), 0));
            Cluster removed = c1.apply(delta().removeTopic("t").build());
            assertNull(removed.topic(id(1)));
            assertNull(removed.topic("t"));
            assertEquals("u", removed.topicName(id(3)));
            Cluster noId = c1.apply(delta().putTopic(topic("t", 0)).build());
            assertNull(noId.topic(id(1)));
            assertNotNull(noId.topic("t"));
            Cluster marked = c1.apply(delta().unauthorizedTopic("t").build());
            assertNull(marked.topic(id(1)));
        }
    }

    @Nested
    class Marks {
        private final Cluster base = cluster(nodes(0), topic("t", id(1), 0), topic("u", 0));

        @Test
        void unauthorizedRemovesTheTopicAndIsRecorded() {
            Cluster c = base.apply(delta().unauthorizedTopic("t").unauthorizedTopic("secret").build());
            assertEquals(Set.of("t", "secret"), c.unauthorizedTopics());
            assertNull(c.topic("t"));
            assertEquals(-1, c.partitionCount("t"));
            assertEquals(Set.of("u"), c.topicNames());
            assertTrue(c.invalidTopics().isEmpty());
        }

        @Test
        void invalidRemovesTheTopicAndIsRecorded() {
            Cluster c = base.apply(delta().invalidTopic("u").invalidTopic("bad name!").build());
            assertEquals(Set.of("u", "bad name!"), c.invalidTopics());
            assertNull(c.topic("u"));
            assertTrue(c.unauthorizedTopics().isEmpty());
        }

        @Test
        void aLaterPutOrRemoveClearsTheMark() {
            Cluster marked = base.apply(delta().unauthorizedTopic("t").invalidTopic("x").build());
            Cluster put = marked.apply(delta().putTopic(topic("t", 0)).build());
            assertTrue(put.unauthorizedTopics().isEmpty());
            assertEquals(Set.of("x"), put.invalidTopics());
            assertNotNull(put.topic("t"));
            Cluster removed = marked.apply(delta().removeTopic("x").build());
            assertTrue(removed.invalidTopics().isEmpty());
            Cluster switched = marked.apply(delta().invalidTopic("t").build());
            assertEquals(Set.of("t", "x"), switched.invalidTopics());
            assertTrue(switched.unauthorizedTopics().isEmpty());
        }

        @Test
        void markSetsAreUnmodifiable() {
            Cluster c = base.apply(delta().unauthorizedTopic("t").invalidTopic("x").build());
            assertThrows(UnsupportedOperationException.class, () -> c.unauthorizedTopics().add("y"));
            assertThrows(UnsupportedOperationException.class, () -> c.invalidTopics().clear());
        }
    }

    @Nested
    class PartitionsOnNode {
        private final Cluster c = cluster(nodes(0, 1, 2), topic("a", 0, 1, 0, -1), topic("b", 1, 0),
                topic("c", 0, 5));

        private Set<String> on(Cluster cl, int node) {
            return cl.partitionsOnNode(node).stream().map(p -> p.topic() + "-" + p.partition())
                    .collect(Collectors.toSet());
        }

        @Test
        void listsExactlyThePartitionsTheNodeLeads() {
            assertEquals(Set.of("a-0", "a-2", "b-1", "c-0"), on(c, 0));
            assertEquals(Set.of("a-1", "b-0"), on(c, 1));
            assertEquals(Set.of(), on(c, 2));
            assertEquals(Set.of(), on(c, 5));
            assertEquals(Set.of(), on(c, -1));
            assertEquals(4, c.partitionsOnNode(0).size(), "no duplicates");
        }

        @Test
        void isBuiltLazilyOncePerSnapshot() throws ReflectiveOperationException {
            Field index = Cluster.class.getDeclaredField("partitionsByLeader");
            index.setAccessible(true);
            Cluster fresh = c.apply(delta().build());
            assertNull(index.get(fresh), "not built by apply");
            List<PartitionMetadata> first = fresh.partitionsOnNode(0);
            assertNotNull(index.get(fresh));
            assertSame(first, fresh.partitionsOnNode(0));
            assertSame(index.get(fresh), getAfterAnotherLookup(fresh, index));
        }

        private Object getAfterAnotherLookup(Cluster cl, Field index) throws IllegalAccessException {
            cl.partitionsOnNode(1);
            return index.get(cl);
        }

        @Test
        void followsTheNextSnapshotsLeaders() {
            assertEquals(Set.of("a-1", "b-0"), on(c, 1));
            Cluster moved = c.apply(delta().putTopic(topic("b", 2, 2)).build());
            assertEquals(Set.of("a-1"), on(moved, 1));
            assertEquals(Set.of("b-0", "b-1"), on(moved, 2));
            assertEquals(Set.of("a-0", "a-2", "c-0"), on(moved, 0));
            assertEquals(Set.of("a-1", "b-0"), on(c, 1), "the old snapshot's index is its own");
        }

        @Test
        void isUnmodifiable() {
            assertThrows(UnsupportedOperationException.class, () -> c.partitionsOnNode(0).clear());
            assertThrows(UnsupportedOperationException.class, () -> c.partitionsOnNode(7).add(null));
        }
    }

    @Nested
    class ControllerAndClusterId {
        @Test
        void controllerIsResolvedThroughTheNodeSet() {
            Cluster c = Cluster.empty().apply(delta().nodes(nodes(0, 1)).controllerId(1).build());
            assertEquals(1, c.controllerId());
            assertSame(c.node(1), c.controller());
            Cluster kept = c.apply(delta().putTopic(topic("t", 0)).build());
            assertEquals(1, kept.controllerId());
            Cluster outside = c.apply(delta().controllerId(9).build());
            assertEquals(9, outside.controllerId());
            assertNull(outside.controller());
            Cluster none = c.apply(delta().controllerId(-5).build());
            assertEquals(-1, none.controllerId());
            assertNull(none.controller());
            Cluster gone = c.apply(delta().nodes(nodes(0)).build());
            assertEquals(1, gone.controllerId());
            assertNull(gone.controller());
        }

        @Test
        void clusterIdIsSetKeptAndCleared() {
            Cluster c = Cluster.empty().apply(delta().clusterId("abc").build());
            assertEquals("abc", c.clusterId());
            assertEquals("abc", c.apply(delta().putTopic(topic("t")).build()).clusterId());
            assertEquals("xyz", c.apply(delta().clusterId("xyz").build()).clusterId());
            assertNull(c.apply(delta().clusterId(null).build()).clusterId());
        }
    }

    @Nested
    class Apply {
        private final Cluster base = cluster(nodes(0, 1), topic("a", id(1), 0, 1), topic("b", 1));

        @Test
        void versionGrowsByOneEvenForAnEmptyDelta() {
            assertEquals(1, base.version());
            Cluster next = base.apply(delta().build());
            assertEquals(2, next.version());
            assertTrue(next.contentEquals(base));
            assertSame(base.topic("a"), next.topic("a"));
            assertEquals(3, next.apply(delta().removeTopic("zz").build()).version());
        }

        @Test
        void topicsTheDeltaDoesNotNameStayTheSameObject() {
            Cluster next = base.apply(delta().putTopic(topic("b", 0, 0)).putTopic(topic("new", 1)).build());
            assertSame(base.topic("a"), next.topic("a"));
            assertSame(base.topic(id(1)), next.topic(id(1)));
            assertArrayEquals(new int[] {0, 0}, leaders(next.topic("b")));
            assertArrayEquals(new int[] {1}, leaders(base.topic("b")), "the old snapshot is unchanged");
            assertEquals(Set.of("a", "b", "new"), next.topicNames());
            assertEquals(Set.of("a", "b"), base.topicNames());
        }

        @Test
        void putTopicWithAllLeadersKnownIsStoredAsGiven() {
            TopicMetadata t = topic("c", 0, 1);
            assertSame(t, base.apply(delta().putTopic(t).build()).topic("c"));
        }

        @Test
        void aGrownTopicAnswersForItsNewPartitions() {
            TopicMetadata grown = base.topic("a").withPartition(partition("a", 3, 1));
            Cluster next = base.apply(delta().putTopic(grown).build());
            assertEquals(4, next.partitionCount("a"));
            assertNull(next.leader("a", 2));
            assertEquals(PartitionMetadata.LEADER_NOT_AVAILABLE, next.partition("a", 2).errorCode());
            assertSame(next.node(1), next.leader("a", 3));
            assertArrayEquals(new int[] {0, 1, 3}, indexes(next.availablePartitions("a")));
            assertEquals(2, base.partitionCount("a"));
        }

        @Test
        void duplicateNodeIdsRejectTheWholeDeltaLeavingTheSnapshotUntouched() {
            ClusterDelta bad = delta().nodes(List.of(node(0), node(1), new Node(1, "other", 9092)))
                    .putTopic(topic("a", 1, 1)).clusterId("new").controllerId(0).build();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> base.apply(bad));
            assertTrue(e.getMessage().contains("node id 1"), e.getMessage());
            assertEquals(1, base.version());
            assertArrayEquals(new int[] {0, 1}, leaders(base.topic("a")));
            assertNull(base.clusterId());
            assertEquals(nodes(0, 1), base.nodes());
            Cluster next = base.apply(delta().build());
            assertEquals(2, next.version(), "the next good delta follows the last good snapshot");
        }

        @Test
        void badPartitionsAreRejectedBeforeAnySnapshotSeesThem() {
            List<PartitionMetadata> dup = List.of(partition("a", 0, 0), partition("a", 0, 1));
            assertThrows(IllegalArgumentException.class, () -> TopicMetadata.of("a", dup));
            assertThrows(IllegalArgumentException.class, () -> partition("a", -1, 0));
            assertThrows(IllegalArgumentException.class,
                    () -> base.topic("a").withPartition(partition("b", 0, 0)));
            assertArrayEquals(new int[] {0, 1}, leaders(base.topic("a")));
        }

        @Test
        void manyTopicsAndIdsStayConsistent() {
            Cluster c = Cluster.empty().apply(delta().nodes(nodes(0, 1, 2)).build());
            List<TopicMetadata> all = new ArrayList<>();
            ClusterDelta.Builder b = delta();
            for (int i = 0; i < 200; i++) {
                TopicMetadata t = topic("t" + i, id(i), i % 3, (i + 1) % 3);
                all.add(t);
                b.putTopic(t);
            }
            c = c.apply(b.build());
            c = c.apply(delta().removeTopic("t5").putTopic(topic("t6", id(1000), 2)).build());
            Set<String> expected = new HashSet<>();
            for (TopicMetadata t : all) {
                expected.add(t.name());
            }
            expected.remove("t5");
            assertEquals(expected, c.topicNames());
            assertEquals("t6", c.topicName(id(1000)));
            assertNull(c.topicName(id(6)));
            assertNull(c.topicName(id(5)));
            assertEquals("t199", c.topicName(id(199)));
            assertSame(all.get(42), c.topic("t42"));
        }
    }

    @Nested
    class ContentEquals {
        private final ClusterDelta full = delta().clusterId("id").controllerId(0).nodes(nodes(0, 1))
                .putTopic(topic("t", id(1), 0, 1)).unauthorizedTopic("u").invalidTopic("i").build();
        private final Cluster c = Cluster.empty().apply(full);

        @Test
        void ignoresVersionAndObjectIdentity() {
            Cluster later = Cluster.empty().apply(delta().build()).apply(delta().build()).apply(full);
            assertEquals(3, later.version());
            assertTrue(c.contentEquals(later));
            assertTrue(later.contentEquals(c));
            Cluster rebuilt = Cluster.empty().apply(delta().clusterId("id").controllerId(0).nodes(nodes(1, 0))
                    .putTopic(topic("t", id(1), 0, 1)).invalidTopic("i").unauthorizedTopic("u").build());
            assertTrue(c.contentEquals(rebuilt));
        }

        @Test
        void seesEveryPartOfTheState() {
            assertFalse(c.contentEquals(c.apply(delta().clusterId("other").build())));
            assertFalse(c.contentEquals(c.apply(delta().controllerId(1).build())));
            assertFalse(c.contentEquals(c.apply(delta().nodes(List.of(node(0), new Node(1, "x", 1))).build())));
            assertFalse(c.contentEquals(c.apply(delta().putTopic(topic("t", id(1), 1, 1)).build())));
            assertFalse(c.contentEquals(c.apply(delta().putTopic(topic("t", id(2), 0, 1)).build())));
            assertFalse(c.contentEquals(c.apply(delta().putTopic(topic("v", 0)).build())));
            assertFalse(c.contentEquals(c.apply(delta().removeTopic("u").build())));
            assertFalse(c.contentEquals(c.apply(delta().removeTopic("i").build())));
            assertFalse(c.contentEquals(c.apply(delta().unauthorizedTopic("i").build())));
            assertFalse(c.contentEquals(null));
            assertTrue(c.contentEquals(c));
        }
    }

    @Test
    void toStringSummarizes() {
        Cluster c = Cluster.empty().apply(delta().clusterId("k").controllerId(1).nodes(nodes(0, 1))
                .putTopic(topic("t", 0)).build());
        assertEquals("Cluster(version=1, id=k, controller=1, nodes=2, topics=1)", c.toString());
    }
}
