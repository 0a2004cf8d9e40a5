package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.internal.RefreshResponse;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The translator's compare path: a topic the wire repeats exactly is the snapshot's own object; a topic that differs
 * in any field the model holds is built anew, equal to what a translation with no snapshot builds. Every mutation
 * below changes one field: if the comparison skipped that field, the translator would hand back the old object and
 * the equality with the fresh build would fail.
 */
class ResponseTranslatorReuseTest {
    private static final Uuid ID = new Uuid(0x6b6dL, 42L);

    private static MetadataResponsePartition partition(int index, int leader, int epoch) {
        List<Integer> replicas = new ArrayList<>(List.of(leader, (leader + 1) % 3, (leader + 2) % 3));
        return new MetadataResponsePartition().setPartitionIndex(index).setLeaderId(leader).setLeaderEpoch(epoch)
                .setReplicaNodes(replicas).setIsrNodes(new ArrayList<>(replicas)).setOfflineReplicas(new ArrayList<>());
    }

    /**
     * A fresh answer (its own objects, as a decoder hands it over): brokers 0-2, "orders" with 4 partitions (the last
     * with replica 2 offline) and "other" with 1.
     */
    private static MetadataResponseData data() {
        MetadataResponseData d = new MetadataResponseData().setClusterId("c1").setControllerId(0);
        for (int id = 0; id < 3; id++) {
            d.brokers().add(new MetadataResponseBroker().setNodeId(id).setHost("127.0.0.1").setPort(9092 + id));
        }
        List<MetadataResponsePartition> partitions = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            partitions.add(partition(p, p % 3, 7));
        }
        partitions.get(3).offlineReplicas().add(2);
        d.topics().add(new MetadataResponseTopic().setName(new String("orders".toCharArray())).setTopicId(ID)
                .setPartitions(partitions));
        d.topics().add(new MetadataResponseTopic().setName("other").setTopicId(new Uuid(1, 2))
                .setPartitions(new ArrayList<>(List.of(partition(0, 1, 3)))));
        return d;
    }

    private static MetadataResponse v13(MetadataResponseData d) {
        return new MetadataResponse(d, (short) 13);
    }

    /** The snapshot an answer of {@link #data()} leaves. */
    private static Cluster snapshotOf(MetadataResponse response) {
        RefreshResponse r = ResponseTranslator.translate(response, Cluster.empty());
        ClusterDelta.Builder b = ClusterDelta.builder().nodes(r.brokers()).clusterId(r.clusterId());
        r.topics().values().forEach(b::putTopic);
        return Cluster.empty().apply(b.build());
    }

    private static MetadataResponsePartition p(MetadataResponseData d, int index) {
        return d.topics().find("orders").partitions().get(index);
    }

    /** Every one-field change the model can hold, by name; each applied to a fresh {@link #data()}. */
    private static Map<String, Consumer<MetadataResponseData>> changes() {
        Map<String, Consumer<MetadataResponseData>> c = new LinkedHashMap<>();
        c.put("leader", d -> p(d, 2).setLeaderId(0));
        c.put("leader gone", d -> p(d, 2).setLeaderId(-1));
        c.put("leader epoch", d -> p(d, 3).setLeaderEpoch(8));
        c.put("no leader epoch", d -> p(d, 3).setLeaderEpoch(-1));
        c.put("partition error", d -> p(d, 1).setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()));
        c.put("replica", d -> p(d, 0).replicaNodes().set(2, 5));
        c.put("replica order", d -> Collections.swap(p(d, 0).replicaNodes(), 1, 2));
        c.put("replica added", d -> p(d, 0).replicaNodes().add(5));
        c.put("replica removed", d -> p(d, 0).replicaNodes().remove(2));
        c.put("replicas none", d -> p(d, 0).setReplicaNodes(new ArrayList<>()));
        c.put("replica null", d -> p(d, 0).replicaNodes().set(1, null));
        c.put("isr shrunk", d -> p(d, 1).isrNodes().remove(2));
        c.put("isr member", d -> p(d, 1).isrNodes().set(0, 4));
        c.put("isr order", d -> Collections.swap(p(d, 1).isrNodes(), 0, 1));
        c.put("isr empty", d -> p(d, 1).setIsrNodes(new ArrayList<>()));
        c.put("offline added", d -> p(d, 3).offlineReplicas().add(1));
        c.put("offline member", d -> p(d, 3).offlineReplicas().set(0, 1));
        c.put("offline cleared", d -> p(d, 3).offlineReplicas().clear());
        c.put("partition added", d -> d.topics().find("orders").partitions().add(partition(4, 1, 7)));
        c.put("partition removed", d -> {
            List<MetadataResponsePartition> partitions = d.topics().find("orders").partitions();
            partitions.remove(partitions.size() - 1);
        });
        c.put("topic error", d -> d.topics().find("orders").setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()));
        c.put("topic id", d -> d.topics().find("orders").setTopicId(new Uuid(0x6b6dL, 43L)));
        c.put("topic id high bits", d -> d.topics().find("orders").setTopicId(new Uuid(0x6b6eL, 42L)));
        c.put("topic id gone", d -> d.topics().find("orders").setTopicId(Uuid.ZERO_UUID));
        c.put("internal", d -> d.topics().find("orders").setIsInternal(true));
        return c;
    }

    @Test
    void anUnchangedTopicIsTheSnapshotsOwnObject() {
        Cluster previous = snapshotOf(v13(data()));
        RefreshResponse again = ResponseTranslator.translate(v13(data()), previous);
        assertSame(previous.topic("orders"), again.topics().get("orders"));
        assertSame(previous.topic("other"), again.topics().get("other"));
        assertEquals(List.of("orders", "other"), new ArrayList<>(again.topics().keySet()), "the wire's order");
    }

    @Test
    void eachChangedFieldMakesANewTopicEqualToAFreshBuild() {
        Cluster previous = snapshotOf(v13(data()));
        TopicMetadata known = previous.topic("orders");
        for (Map.Entry<String, Consumer<MetadataResponseData>> change : changes().entrySet()) {
            MetadataResponseData changed = data();
            change.getValue().accept(changed);
            TopicMetadata fresh = ResponseTranslator.translate(v13(copy(changed)), Cluster.empty()).topics()
                    .get("orders");
            TopicMetadata got = ResponseTranslator.translate(v13(changed), previous).topics().get("orders");
            String what = change.getKey();
            assertNotSame(known, got, what + ": the change was not seen");
            assertEquals(fresh, got, what);
            assertEquals(fresh.topicId(), got.topicId(), what);
            assertEquals(fresh.isInternal(), got.isInternal(), what);
            assertSame(previous.topic("other"), ResponseTranslator.translate(v13(changed), previous).topics()
                    .get("other"), what + ": the unchanged topic next to it");
        }
    }

    /**
     * The hint the merge skips by ({@code RefreshResponse.notFromBase}): exactly the topics that are not the
     * snapshot's own objects, or that carry a topic error. A topic missing from it is skipped by the merge, so a
     * changed topic missing from it would be a change lost.
     */
    @Test
    void theMergeHintListsExactlyTheTopicsThatAreNotTheSnapshotsOwn() {
        Cluster previous = snapshotOf(v13(data()));
        Map<String, Consumer<MetadataResponseData>> all = new LinkedHashMap<>(changes());
        all.put("partitions reordered", d -> Collections.reverse(d.topics().find("orders").partitions()));
        all.put("topic added", d -> d.topics().add(new MetadataResponseTopic().setName("added")
                .setTopicId(new Uuid(5, 5)).setPartitions(new ArrayList<>(List.of(partition(0, 2, 1))))));
        all.put("topic deleted", d -> d.topics().find("orders").setPartitions(new ArrayList<>())
                .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
        for (Map.Entry<String, Consumer<MetadataResponseData>> change : all.entrySet()) {
            MetadataResponseData changed = data();
            change.getValue().accept(changed);
            RefreshResponse r = ResponseTranslator.translate(v13(changed), previous);
            String what = change.getKey();
            assertSame(previous, r.basedOn(), what);
            List<String> expected = List.of(what.equals("topic added") ? "added" : "orders");
            assertEquals(expected, names(r.notFromBase()), what);
            assertHintHolds(previous, r, what);
        }

        RefreshResponse same = ResponseTranslator.translate(v13(data()), previous);
        assertEquals(List.of(), names(same.notFromBase()), "nothing changed: nothing to merge");
        MetadataResponseData without = data();
        without.topics().remove(without.topics().find("other"));
        RefreshResponse left = ResponseTranslator.translate(v13(without), previous);
        assertEquals(List.of(), names(left.notFromBase()), "a topic left out of the answer");
        assertEquals(List.of("orders"), new ArrayList<>(left.topics().keySet()));
    }

    /** A topic whose error the snapshot already holds is its own object, and still goes to the merge. */
    @Test
    void aReusedTopicWithAnErrorIsStillMerged() {
        Consumer<MetadataResponseData> error = d -> d.topics().find("orders")
                .setErrorCode(Errors.LEADER_NOT_AVAILABLE.code());
        MetadataResponseData first = data();
        error.accept(first);
        Cluster previous = snapshotOf(v13(first));
        MetadataResponseData again = data();
        error.accept(again);
        RefreshResponse r = ResponseTranslator.translate(v13(again), previous);
        assertSame(previous.topic("orders"), r.topics().get("orders"));
        assertEquals(List.of("orders"), names(r.notFromBase()));
        assertHintHolds(previous, r, "error");
    }

    private static void assertHintHolds(Cluster previous, RefreshResponse r, String what) {
        for (TopicMetadata t : r.topics().values()) {
            boolean own = t == previous.topic(t.name()) && t.errorCode() == PartitionMetadata.NONE;
            assertEquals(!own, r.notFromBase().contains(t), what + ": " + t.name());
        }
    }

    private static List<String> names(List<TopicMetadata> topics) {
        List<String> names = new ArrayList<>();
        topics.forEach(t -> names.add(t.name()));
        return names;
    }

    @Test
    void aChangedTopicStillReusesItsUnchangedPartitions() {
        Cluster previous = snapshotOf(v13(data()));
        MetadataResponseData changed = data();
        p(changed, 2).setLeaderId(0).setLeaderEpoch(8);
        TopicMetadata got = ResponseTranslator.translate(v13(changed), previous).topics().get("orders");
        for (int i : new int[] {0, 1, 3}) {
            assertSame(previous.topic("orders").partition(i), got.partition(i), "partition " + i);
        }
        assertEquals(0, got.partition(2).leaderId());
        assertEquals(8, got.partition(2).leaderEpoch());
    }

    /** What the model normalizes anyway is no change: the same object comes back. */
    @Test
    void differencesTheModelNormalizesAwayAreNoChange() {
        MetadataResponseData leaderless = data();
        p(leaderless, 2).setLeaderId(-1).setLeaderEpoch(-1);
        Cluster previous = snapshotOf(v13(leaderless));
        MetadataResponseData sameAgain = data();
        p(sameAgain, 2).setLeaderId(-5).setLeaderEpoch(-9); // any negative means "none"
        assertSame(previous.topic("orders"), ResponseTranslator.translate(v13(sameAgain), previous).topics()
                .get("orders"));

        MetadataResponseData nullId = data();
        nullId.topics().find("orders").setTopicId(Uuid.ZERO_UUID);
        Cluster withoutId = snapshotOf(v13(nullId));
        MetadataResponseData nullAgain = data();
        nullAgain.topics().find("orders").setTopicId(Uuid.ZERO_UUID);
        assertSame(withoutId.topic("orders"), ResponseTranslator.translate(v13(nullAgain), withoutId).topics()
                .get("orders"), "no id, then no id again");
    }

    /** Below v9 the epochs are dropped: an epoch change is then no change, a leader change still is. */
    @Test
    void untrustedEpochsAreComparedAsDropped() {
        MetadataResponse v8 = v8(data());
        Cluster previous = snapshotOf(v8);
        assertEquals(-1, previous.topic("orders").partition(3).leaderEpoch());
        MetadataResponseData epochMoved = data();
        p(epochMoved, 3).setLeaderEpoch(8);
        assertSame(previous.topic("orders"), ResponseTranslator.translate(v8(epochMoved), previous).topics()
                .get("orders"));
        MetadataResponseData leaderMoved = data();
        p(leaderMoved, 3).setLeaderId(2);
        TopicMetadata got = ResponseTranslator.translate(v8(leaderMoved), previous).topics().get("orders");
        assertNotSame(previous.topic("orders"), got);
        assertEquals(2, got.partition(3).leaderId());
        assertEquals(-1, got.partition(3).leaderEpoch());
    }

    private static MetadataResponse v8(MetadataResponseData d) {
        return MetadataResponse.parse(MessageUtil.toByteBufferAccessor(d, (short) 8), (short) 8);
    }

    /**
     * Partitions listed out of order, twice or with a gap are never matched field by field against the snapshot:
     * they go the building way, which gives the value the rules give (first entry wins, gaps become placeholders).
     */
    @Test
    void unusualPartitionListsAreBuiltNotMatched() {
        Cluster previous = snapshotOf(v13(data()));
        TopicMetadata known = previous.topic("orders");

        MetadataResponseData reversed = data();
        Collections.reverse(reversed.topics().find("orders").partitions());
        TopicMetadata got = ResponseTranslator.translate(v13(reversed), previous).topics().get("orders");
        assertEquals(known, got, "the same partitions in another order are the same topic");
        for (int i = 0; i < 4; i++) {
            assertSame(known.partition(i), got.partition(i), "each partition reused");
        }

        MetadataResponseData duplicated = data(); // as many entries as known, but index 1 twice and 2 missing
        duplicated.topics().find("orders").partitions().set(2, partition(1, 0, 9));
        TopicMetadata dup = ResponseTranslator.translate(v13(duplicated), previous).topics().get("orders");
        assertEquals(ResponseTranslator.translate(v13(copy(duplicated)), Cluster.empty()).topics().get("orders"),
                dup);
        assertEquals(4, dup.partitionCount());
        assertSame(known.partition(1), dup.partition(1), "the first entry of index 1 wins (and is unchanged)");
        assertEquals(PartitionMetadata.LEADER_NOT_AVAILABLE, dup.partition(2).errorCode(), "2 is a placeholder");
        assertEquals(-1, dup.partition(2).leaderId());

        MetadataResponseData shifted = data(); // indexes 1..4: a gap at 0
        for (MetadataResponsePartition q : shifted.topics().find("orders").partitions()) {
            q.setPartitionIndex(q.partitionIndex() + 1);
        }
        TopicMetadata gap = ResponseTranslator.translate(v13(shifted), previous).topics().get("orders");
        assertEquals(5, gap.partitionCount());
        assertEquals(PartitionMetadata.LEADER_NOT_AVAILABLE, gap.partition(0).errorCode());
    }

    /** Built partitions hold what the wire said, whether the ISR equals the replicas or not. */
    @Test
    void builtPartitionsHoldTheWiresIds() {
        MetadataResponseData d = data();
        p(d, 0).setReplicaNodes(new ArrayList<>(Arrays.asList(2, null, 0))).setIsrNodes(new ArrayList<>(List.of(2)))
                .setOfflineReplicas(new ArrayList<>(List.of(1)));
        TopicMetadata t = ResponseTranslator.translate(v13(d), Cluster.empty()).topics().get("orders");
        assertArrayEquals(new int[] {2, -1, 0}, t.partition(0).replicas(), "a null id is -1");
        assertArrayEquals(new int[] {2}, t.partition(0).inSyncReplicas());
        assertArrayEquals(new int[] {1}, t.partition(0).offlineReplicas());
        assertArrayEquals(new int[] {1, 2, 0}, t.partition(1).replicas());
        assertArrayEquals(new int[] {1, 2, 0}, t.partition(1).inSyncReplicas());
        assertArrayEquals(new int[0], t.partition(1).offlineReplicas());
        assertEquals(new PartitionMetadata("orders", 1, 1, 7, new int[] {1, 2, 0}, new int[] {1, 2, 0}, null,
                PartitionMetadata.NONE), t.partition(1));
    }

    /** Random one- and two-field changes: the result is always the fresh build, and the old object iff equal. */
    @Test
    void randomChangesAlwaysGiveTheFreshBuild() {
        Cluster previous = snapshotOf(v13(data()));
        TopicMetadata known = previous.topic("orders");
        List<Consumer<MetadataResponseData>> all = new ArrayList<>(changes().values());
        all.add(d -> { }); // and no change at all
        Random random = new Random(14);
        for (int round = 0; round < 500; round++) {
            MetadataResponseData changed = data();
            all.get(random.nextInt(all.size())).accept(changed);
            if (random.nextBoolean()) {
                try {
                    all.get(random.nextInt(all.size())).accept(changed);
                } catch (IndexOutOfBoundsException notApplicable) {
                    // a member of a list, or a partition, the first change removed: that change alone, then
                }
            }
            TopicMetadata fresh = ResponseTranslator.translate(v13(copy(changed)), Cluster.empty()).topics()
                    .get("orders");
            TopicMetadata got = ResponseTranslator.translate(v13(changed), previous).topics().get("orders");
            assertEquals(fresh, got, "round " + round);
            assertEquals(fresh.equals(known), got == known, "round " + round + ": reused iff equal");
        }
    }

    /** The same answer again, as its own objects (the compare path must not depend on sharing any of them). */
    private static MetadataResponseData copy(MetadataResponseData d) {
        return d.duplicate();
    }
}
