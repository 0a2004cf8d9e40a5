package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.internal.RefreshResponse;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * The invariants {@link HostileResponsesTest} checks after every step, and the reference model of what an applied
 * answer must do (written from the rules in docs/design.md and {@code ResponseMerger}'s class doc, not from its code).
 * Each check throws {@link AssertionError} with what broke. Stateless.
 */
final class HostileChecks {
    static final short UNKNOWN_TOPIC = 3;
    static final short INVALID_TOPIC = 17;
    static final short TOPIC_AUTHORIZATION_FAILED = 29;

    private HostileChecks() {
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    // ------------------------------------------------------------------ one snapshot

    /** Every leader a known node or none, partitions 0..n-1 all there, the indexes agreeing with each other. */
    static void consistent(Cluster c, Set<String> subscribed) {
        for (Node n : c.nodes()) {
            check(n.equals(c.node(n.id())), "node " + n.id() + " listed but node(id) gives " + c.node(n.id()));
        }
        for (String name : c.topicNames()) {
            TopicMetadata t = c.topic(name);
            check(t != null && t.name().equals(name), "topic(" + name + ") gives " + t);
            check(subscribed.contains(name), "topic " + name + " in the snapshot but not subscribed");
            check(!c.unauthorizedTopics().contains(name) && !c.invalidTopics().contains(name),
                    name + " both described and marked unauthorized/invalid");
            partitions(c, t);
            if (t.topicId() != null) {
                byId(c, t.topicId());
            }
        }
        for (String name : c.unauthorizedTopics()) {
            check(!c.invalidTopics().contains(name), name + " both unauthorized and invalid");
        }
    }

    private static void partitions(Cluster c, TopicMetadata t) {
        String name = t.name();
        int n = t.partitionCount();
        List<PartitionMetadata> available = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            PartitionMetadata p = t.partition(i);
            check(p != null && p.partition() == i && p.topic().equals(name), name + " partition " + i + " is " + p);
            if (p.hasLeader()) {
                check(c.node(p.leaderId()) != null, "leader " + p.leaderId() + " of " + name + "-" + i
                        + " is not a known node " + ids(c.nodes()));
                check(c.node(p.leaderId()).equals(c.leader(name, i)), "leader(" + name + ", " + i + ") disagrees");
                available.add(p);
            } else {
                check(c.leader(name, i) == null, "leader(" + name + ", " + i + ") of a leaderless partition");
            }
        }
        check(t.partition(n) == null && t.partition(-1) == null, name + " answers an index out of 0.." + (n - 1));
        check(c.partitionCount(name) == n, "partitionCount(" + name + ") disagrees");
        check(available.equals(t.availablePartitions()), name + " availablePartitions " + t.availablePartitions()
                + " but the partitions with a leader are " + available);
    }

    /** A lookup by id gives nothing, or a live topic with that id (ids may be shared by hostile answers). */
    static void byId(Cluster c, UUID id) {
        TopicMetadata t = c.topic(id);
        check(t == null || id.equals(t.topicId()) && c.topic(t.name()) == t, "topic(" + id + ") gives " + t
                + ", not a live topic with that id");
    }

    // ------------------------------------------------------------------ from one snapshot to the next

    /**
     * Versions only grow; a topic present before and after, with the same topic id and cluster id, never shrinks and
     * none of its epochs go back unless {@code epochBackOk} says why that one may.
     */
    static void transition(Cluster prev, Cluster next, EpochBackOk epochBackOk) {
        check(next.version() >= prev.version(), "version went back from " + prev.version() + " to "
                + next.version());
        check(next == prev || next.version() > prev.version(), "a new snapshot with the same version "
                + next.version());
        boolean clusterChanged = clusterChanged(prev, next);
        for (String name : prev.topicNames()) {
            TopicMetadata o = prev.topic(name);
            if (o.topicId() != null) {
                byId(next, o.topicId());
            }
            TopicMetadata n = next.topic(name);
            if (n == null || clusterChanged || idsDiffer(o.topicId(), n.topicId())) {
                continue;
            }
            check(n.partitionCount() >= o.partitionCount(), name + " shrank from " + o.partitionCount() + " to "
                    + n.partitionCount() + " partitions without a topic id change");
            for (int i = 0; i < o.partitionCount(); i++) {
                int before = o.partition(i).leaderEpoch();
                int after = n.partition(i).leaderEpoch();
                if (after < before) {
                    String why = epochBackOk.why(name, i, after);
                    check(why != null, "epoch of " + name + "-" + i + " went back from " + before + " to " + after
                            + " without a topic id change, an answer without epochs, or "
                            + "kmeta.metadata.epoch.rewind.accept.count answers in a row saying so");
                }
            }
        }
    }

    /** Why an epoch may go back to {@code epoch}, or null. */
    interface EpochBackOk {
        String why(String topic, int partition, int epoch);
    }

    static boolean clusterChanged(Cluster prev, Cluster next) {
        return prev.clusterId() != null && next.clusterId() != null && !prev.clusterId().equals(next.clusterId());
    }

    static boolean idsDiffer(UUID a, UUID b) {
        return a != null && b != null && !a.equals(b);
    }

    // ------------------------------------------------------------------ the reference model of an applied answer

    /**
     * What an applied answer must have done, topic by topic: the rules of docs/design.md, restated.
     *
     * @param subscribed the names subscribed when the answer was merged
     */
    static void answerApplied(Cluster prev, Cluster next, RefreshResponse answer, Set<String> subscribed) {
        check(ids(next.nodes()).equals(ids(answer.brokers())), "nodes " + ids(next.nodes()) + " but the answer listed "
                + ids(answer.brokers()));
        String expectedId = answer.clusterId() != null ? answer.clusterId() : prev.clusterId();
        check(Objects.equals(expectedId, next.clusterId()), "cluster id " + next.clusterId() + ", expected "
                + expectedId);
        boolean clusterChanged = clusterChanged(prev, next);
        for (TopicMetadata t : answer.topics().values()) {
            if (subscribed.contains(t.name())) {
                topicAnswered(prev, next, t, answer.epochsTrusted(), clusterChanged);
            } else {
                check(next.topic(t.name()) == null, "unsubscribed " + t.name() + " taken from an answer");
            }
        }
        for (String name : prev.topicNames()) {
            check(clusterChanged || answer.topics().containsKey(name) || next.topic(name) != null, name
                    + " vanished though the answer did not describe it");
        }
        if (clusterChanged) {
            for (String name : next.unauthorizedTopics()) {
                check(answer.topics().containsKey(name), name + " still refused after the cluster id changed to "
                        + next.clusterId() + " though the new cluster did not say so: two clusters mixed");
            }
            for (String name : next.invalidTopics()) {
                check(answer.topics().containsKey(name), name + " still invalid after the cluster id changed to "
                        + next.clusterId() + " though the new cluster did not say so: two clusters mixed");
            }
        }
        for (String name : next.topicNames()) {
            if (!answer.topics().containsKey(name)) {
                check(!clusterChanged, "after the cluster id changed to " + next.clusterId() + ", " + name
                        + " is still there though the answer did not describe it: two clusters mixed");
                check(next.topic(name).equals(stripped(prev.topic(name), next)), name
                        + " changed though the answer did not describe it");
            }
        }
    }

    private static void topicAnswered(Cluster prev, Cluster next, TopicMetadata t, boolean trusted,
                                      boolean clusterChanged) {
        String name = t.name();
        TopicMetadata o = prev.topic(name);
        TopicMetadata n = next.topic(name);
        switch (t.errorCode()) {
            case UNKNOWN_TOPIC:
                check(n == null, name + " still there after UNKNOWN_TOPIC_OR_PARTITION");
                return;
            case TOPIC_AUTHORIZATION_FAILED:
                check(n == null && next.unauthorizedTopics().contains(name), name
                        + " not marked unauthorized after TOPIC_AUTHORIZATION_FAILED");
                return;
            case INVALID_TOPIC:
                check(n == null && next.invalidTopics().contains(name), name
                        + " not marked invalid after INVALID_TOPIC_EXCEPTION");
                return;
            default:
                break;
        }
        if (t.partitionCount() == 0) {
            if (clusterChanged) {
                check(n == null, name + " keeps the old cluster's metadata after the cluster id changed to "
                        + next.clusterId() + " (the new one answered error " + t.errorCode()
                        + " with no partitions): two clusters mixed");
            } else {
                check(Objects.equals(n, o == null ? null : stripped(o, next)), name
                        + " changed by an answer with no partitions (error " + t.errorCode() + ")");
            }
            return;
        }
        check(n != null, name + " answered with " + t.partitionCount() + " partitions but not in the snapshot");
        if (o == null || clusterChanged || idsDiffer(o.topicId(), t.topicId())) {
            check(n.equals(stripped(t, next)), name + " is new (or re-created): expected the answer " + t
                    + " as it is, got " + n + " " + n.partitions());
            return;
        }
        int count = Math.max(o.partitionCount(), t.partitionCount());
        check(n.partitionCount() == count, name + " has " + n.partitionCount() + " partitions, expected max("
                + o.partitionCount() + " known, " + t.partitionCount() + " answered)");
        check(Objects.equals(n.topicId(), t.topicId() != null ? t.topicId() : o.topicId()), name + " topic id "
                + n.topicId());
        for (int i = 0; i < count; i++) {
            partitionAnswered(next, name, i, o.partition(i), t.partition(i), n.partition(i), trusted);
        }
    }

    private static void partitionAnswered(Cluster next, String name, int i, PartitionMetadata o,
                                          PartitionMetadata a, PartitionMetadata got, boolean trusted) {
        PartitionMetadata expected;
        if (a == null || skipped(a)) {
            expected = o != null ? o : a;
        } else if (o == null || !trusted) {
            expected = a;
        } else if (a.leaderEpoch() == PartitionMetadata.NO_EPOCH && o.leaderEpoch() != PartitionMetadata.NO_EPOCH) {
            expected = o;
        } else if (a.leaderEpoch() < o.leaderEpoch()) {
            PartitionMetadata rewound = stripped(a, next);
            check(got.equals(stripped(o, next)) || got.equals(rewound), name + "-" + i + " is " + got
                    + ": neither the known " + o + " nor the rewound " + a);
            return;
        } else {
            expected = a;
        }
        check(got.equals(stripped(expected, next)), name + "-" + i + " is " + got + ", expected " + expected
                + " (known " + o + ", answered " + a + ", epochs " + (trusted ? "trusted" : "not trusted") + ")");
    }

    /** An index the answer's list skipped (filled in as a leaderless placeholder). */
    static boolean skipped(PartitionMetadata p) {
        return !p.hasLeader() && p.replicaCount() == 0 && p.leaderEpoch() == PartitionMetadata.NO_EPOCH
                && p.errorCode() == PartitionMetadata.LEADER_NOT_AVAILABLE;
    }

    /** The topic as a snapshot with {@code c}'s nodes holds it: leaders it does not know are none (epoch kept). */
    static TopicMetadata stripped(TopicMetadata t, Cluster c) {
        List<PartitionMetadata> ps = new ArrayList<>();
        for (PartitionMetadata p : t.partitions()) {
            ps.add(stripped(p, c));
        }
        return TopicMetadata.of(t.name(), t.topicId(), t.isInternal(), t.errorCode(), ps);
    }

    static PartitionMetadata stripped(PartitionMetadata p, Cluster c) {
        return p.hasLeader() && c.node(p.leaderId()) == null ? p.withLeader(PartitionMetadata.NO_LEADER,
                p.leaderEpoch()) : p;
    }

    // ------------------------------------------------------------------ the translation

    /** The translation against the raw answer: first entry wins, bad entries dropped, epochs only from v9. */
    static void translated(MetadataResponseData raw, short version, RefreshResponse r) {
        Map<Integer, MetadataResponseBroker> brokers = new HashMap<>();
        for (MetadataResponseBroker b : raw.brokers()) {
            if (b.nodeId() >= 0 && b.port() >= 0 && b.port() <= 65535) {
                brokers.putIfAbsent(b.nodeId(), b);
            }
        }
        check(r.brokers().size() == brokers.size(), "translated brokers " + r.brokers() + " from " + raw.brokers());
        for (Node n : r.brokers()) {
            MetadataResponseBroker b = brokers.get(n.id());
            check(b != null && b.port() == n.port() && b.host().equals(n.host()), "broker " + n + " from " + b);
        }
        check(r.epochsTrusted() == (version >= 9), "epochs trusted at v" + version + ": " + r.epochsTrusted());
        check(Objects.equals(r.clusterId(), raw.clusterId()), "cluster id");
        // Per name, the first entry the snapshot model accepts (one with an absurd partition index is skipped).
        Set<String> taken = new HashSet<>();
        for (MetadataResponseTopic t : raw.topics()) {
            if (!taken.contains(t.name()) && !absurd(t)) {
                taken.add(t.name());
                translatedTopic(t, version, r.topics().get(t.name()));
            }
        }
        check(r.topics().keySet().equals(taken), "translated topics " + r.topics().keySet() + ", expected " + taken);
    }

    private static boolean absurd(MetadataResponseTopic t) {
        for (MetadataResponsePartition p : t.partitions()) {
            if (p.partitionIndex() >= 100_000) {
                return true;
            }
        }
        return false;
    }

    private static void translatedTopic(MetadataResponseTopic raw, short version, TopicMetadata t) {
        check(t != null && t.errorCode() == raw.errorCode(), raw.name() + " translated to " + t);
        UUID id = Uuid.ZERO_UUID.equals(raw.topicId()) ? null
                : new UUID(raw.topicId().getMostSignificantBits(), raw.topicId().getLeastSignificantBits());
        check(Objects.equals(id, t.topicId()), raw.name() + " id " + t.topicId() + " from " + raw.topicId());
        BitSet seen = new BitSet();
        int max = -1;
        for (MetadataResponsePartition p : raw.partitions()) {
            int i = p.partitionIndex();
            if (i < 0 || seen.get(i)) {
                continue;
            }
            seen.set(i);
            max = Math.max(max, i);
            PartitionMetadata got = t.partition(i);
            int epoch = version >= 9 && p.leaderEpoch() >= 0 ? p.leaderEpoch() : PartitionMetadata.NO_EPOCH;
            check(got != null && got.leaderId() == Math.max(-1, p.leaderId()) && got.leaderEpoch() == epoch
                    && got.errorCode() == p.errorCode() && Arrays.equals(got.replicas(), ints(p.replicaNodes())),
                    raw.name() + "-" + i + " translated to " + got + " from " + p);
        }
        check(t.partitionCount() == max + 1, raw.name() + " count " + t.partitionCount() + ", highest index " + max);
    }

    private static int[] ints(List<Integer> ids) {
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    static Set<Integer> ids(List<Node> nodes) {
        Set<Integer> ids = new java.util.TreeSet<>();
        for (Node n : nodes) {
            ids.add(n.id());
        }
        return ids;
    }
}
