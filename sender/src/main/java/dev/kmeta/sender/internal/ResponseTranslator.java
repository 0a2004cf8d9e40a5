package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.cluster.internal.OwnedPartitions;
import dev.kmeta.metadata.internal.RefreshResponse;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.requests.MetadataResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.UUID;

/**
 * Turns a kafka-clients {@link MetadataResponse} into the manager's {@link RefreshResponse} - the one place where
 * the wire's shapes meet kmeta's. It reads the raw {@link MetadataResponseData} (no per-partition objects of
 * kafka-clients' own, no {@code TopicPartition}), copies what it needs into compact form, keeps no reference to the
 * response, and reuses the previous snapshot's {@link Node} objects when a broker did not change. The replica id arrays
 * it fills are shared between the partitions of one answer that list the same ids ({@link IdArrays}: a partition
 * never exposes or changes them), so a cluster of N brokers keeps a handful of them, not one or two per partition.
 *
 * <p>Hostile input is normalized, never trusted: a broker id listed twice keeps its first entry; a topic without a
 * name is skipped; a partition with a negative index or an index listed twice keeps only its first good entry; a
 * topic the snapshot model rejects (e.g. an absurd partition index) is skipped with a warning. Epochs are dropped
 * (set to "no epoch") when the response version is too old to carry reliable ones (below 9).
 *
 * <p>Stateless and thread-safe.
 */
@SuppressKafkaInternalApiUsage("translates MetadataResponseData (the wire message) into kmeta's snapshot without "
        + "building Kafka's Cluster")
public final class ResponseTranslator {
    private static final Logger log = LoggerFactory.getLogger(ResponseTranslator.class);

    private ResponseTranslator() {
    }

    /**
     * Translates an answer.
     *
     * @param response the answer from the wire
     * @param previous the current snapshot, whose unchanged {@link Node}s are reused
     */
    public static RefreshResponse translate(MetadataResponse response, Cluster previous) {
        MetadataResponseData data = response.data();
        boolean epochsTrusted = response.hasReliableLeaderEpochs();
        List<Node> brokers = brokers(data, previous);
        TopicsByName topics = new TopicsByName(data.topics().size());
        List<TopicMetadata> notFromPrevious = new ArrayList<>();
        IdArrays ids = new IdArrays();
        for (MetadataResponseTopic t : data.topics()) {
            String name = t.name();
            if (name == null || name.isEmpty() || topics.containsKey(name)) {
                continue;
            }
            List<MetadataResponsePartition> wire = t.partitions();
            // An error-only topic (unknown, refused; most of a 1,000-topic miss answer) needs no lookup.
            TopicMetadata known = wire.isEmpty() ? null : previous.topic(name);
            TopicMetadata topic = wire.isEmpty() ? of(name, t, List.of())
                    : topic(name, t, wire, known, epochsTrusted, ids);
            if (topic != null) {
                topics.add(name, topic);
                if (topic != known || topic.errorCode() != PartitionMetadata.NONE) {
                    notFromPrevious.add(topic); // what the merge must look at (RefreshResponse.notFromBase)
                }
            }
        }
        String clusterId = data.clusterId();
        return new RefreshResponse(clusterId, data.controllerId(), brokers, topics, epochsTrusted, data.errorCode(),
                previous, notFromPrevious);
    }

    private static List<Node> brokers(MetadataResponseData data, Cluster previous) {
        List<Node> brokers = new ArrayList<>(data.brokers().size());
        BitSet seen = new BitSet();
        for (MetadataResponseData.MetadataResponseBroker b : data.brokers()) {
            int id = b.nodeId();
            if (id < 0 || seen.get(id) || b.host() == null || b.port() < 0 || b.port() > 65535) {
                continue;
            }
            seen.set(id);
            Node old = previous.node(id);
            Node fresh = new Node(id, b.host(), b.port(), b.rack());
            brokers.add(fresh.equals(old) ? old : fresh);
        }
        return brokers;
    }

    /**
     * A topic the snapshot already holds exactly as the wire says is the snapshot's own object (a full answer to a
     * cluster where little changed: nearly every topic, bench FullAnswer); it is compared field by field without a
     * lookup or an allocation per partition. Otherwise the topic is built anew, reusing each partition the snapshot
     * holds exactly as the wire says (a periodic refresh of an unchanged cluster then allocates next to nothing per
     * partition, bench P2; the merge keeps them anyway).
     */
    private static TopicMetadata topic(String name, MetadataResponseTopic t, List<MetadataResponsePartition> wire,
                                       TopicMetadata known, boolean epochsTrusted, IdArrays ids) {
        if (known != null && sameTopic(known, t, wire, epochsTrusted)) {
            return known;
        }
        List<PartitionMetadata> partitions = new ArrayList<>(wire.size());
        BitSet seen = new BitSet();
        for (MetadataResponsePartition p : wire) {
            int index = p.partitionIndex();
            if (index < 0 || seen.get(index)) {
                continue;
            }
            seen.set(index);
            int epoch = epochsTrusted ? p.leaderEpoch() : PartitionMetadata.NO_EPOCH;
            PartitionMetadata old = known == null ? null : known.partition(index);
            partitions.add(old != null && sameAs(old, p, epoch) ? old : fresh(name, index, p, epoch, ids));
        }
        return of(name, t, partitions);
    }

    /** A new partition from the wire's, its id arrays filled once (or shared, {@link IdArrays}) and handed over. */
    private static PartitionMetadata fresh(String name, int index, MetadataResponsePartition p, int epoch,
                                           IdArrays ids) {
        int[] replicas = ids.of(p.replicaNodes());
        int[] isr = replicas != null && sameIds(p.isrNodes(), replicas) ? replicas : ids.of(p.isrNodes());
        return OwnedPartitions.of(name, index, p.leaderId(), epoch, replicas, isr, ids.of(p.offlineReplicas()),
                p.errorCode());
    }

    /**
     * The id arrays of one answer, one object per content: a table of two slots per hash (Fibonacci hashing) holding
     * arrays made before (where both slots hold other content, the newer replaces the second; nothing allocated but
     * the arrays and, with the first array, the table). A partition hands its arrays to nobody and never writes them
     * (its accessors copy), so partitions may share them: 10,000 partitions of a 3-broker cluster kept 10,000
     * {@code int[]} (320 KB) before.
     * Not thread-safe: one per {@link #translate} call.
     */
    static final class IdArrays {
        private static final int SLOT_BITS = 8;
        private static final int SLOTS = 1 << SLOT_BITS;
        private int[][] slots;
        private int[] read;

        /**
         * The ids as an array (null for none; a null id is -1), the array made before for the same ids while its slot
         * still holds it.
         */
        int[] of(List<Integer> ids) {
            int n = size(ids);
            if (n == 0) {
                return null;
            }
            if (read == null || read.length < n) { // made with the first array: an answer of known topics makes none
                read = new int[Math.max(n, 4)];
            }
            int h = n;
            for (int i = 0; i < n; i++) { // one pass over the boxed ids; the compares below are of ints
                int id = id(ids.get(i));
                read[i] = id;
                h = 31 * h + id;
            }
            if (slots == null) {
                slots = new int[SLOTS][];
            }
            int at = (h * 0x9E3779B9) >>> (32 - SLOT_BITS) & ~1; // two slots per hash: [at, at + 1]
            for (int i = at; i <= at + 1; i++) {
                int[] cached = slots[i];
                if (cached != null && holdsRead(cached, n)) {
                    return cached;
                }
            }
            int[] made = Arrays.copyOf(read, n);
            slots[slots[at] == null ? at : at + 1] = made; // both taken: the second one's content is replaced
            return made;
        }

        private boolean holdsRead(int[] cached, int n) {
            if (cached.length != n) {
                return false;
            }
            for (int i = 0; i < n; i++) {
                if (cached[i] != read[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    private static TopicMetadata of(String name, MetadataResponseTopic t, List<PartitionMetadata> partitions) {
        try {
            return TopicMetadata.of(name, uuid(t.topicId()), t.isInternal(), t.errorCode(), partitions);
        } catch (RuntimeException bad) { // IllegalArgumentException by contract; anything else is a model bug
            log.warn("Ignoring unusable metadata for topic {}: {}", name, bad.getMessage());
            return null;
        }
    }

    /**
     * True when {@code known} is what {@link #topic} would build from the wire's {@code t}: the same topic id,
     * internal flag and error, and partitions listed in index order (0, 1, 2...), as many as known, each equal to
     * the known one. Any other order falls back to building the topic (which may still find it equal), so that a
     * duplicate, negative or skipped index can never pass for a match.
     */
    private static boolean sameTopic(TopicMetadata known, MetadataResponseTopic t, List<MetadataResponsePartition> wire,
                             boolean epochsTrusted) {
        if (wire.size() != known.partitionCount() || known.errorCode() != t.errorCode()
                || known.isInternal() != t.isInternal() || !sameId(known.topicId(), t.topicId())) {
            return false;
        }
        for (int index = 0, n = wire.size(); index < n; index++) { // by index: the decoder's lists are ArrayLists
            MetadataResponsePartition p = wire.get(index);
            int epoch = epochsTrusted ? p.leaderEpoch() : PartitionMetadata.NO_EPOCH;
            if (p.partitionIndex() != index || !sameAs(known.partition(index), p, epoch)) {
                return false;
            }
        }
        return true;
    }

    /** The known topic id against the wire's, as {@link #uuid} would turn it (null and zero mean none). */
    private static boolean sameId(UUID known, Uuid wire) {
        if (wire == null || Uuid.ZERO_UUID.equals(wire)) {
            return known == null;
        }
        return known != null && known.getMostSignificantBits() == wire.getMostSignificantBits()
                && known.getLeastSignificantBits() == wire.getLeastSignificantBits();
    }

    /** True when {@code old} is what {@code new PartitionMetadata(...)} of {@code p} would be (it normalizes too). */
    private static boolean sameAs(PartitionMetadata old, MetadataResponsePartition p, int epoch) {
        return old.leaderId() == Math.max(p.leaderId(), PartitionMetadata.NO_LEADER)
                && old.leaderEpoch() == Math.max(epoch, PartitionMetadata.NO_EPOCH)
                && old.errorCode() == p.errorCode()
                && sameReplicas(p.replicaNodes(), old)
                && sameIsr(p.isrNodes(), old)
                && sameOffline(p.offlineReplicas(), old);
    }

    // Three loops, not one with a selector: each compiles to plain int compares against one accessor.

    private static boolean sameReplicas(List<Integer> ids, PartitionMetadata old) {
        int n = size(ids);
        if (n != old.replicaCount()) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (id(ids.get(i)) != old.replica(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameIsr(List<Integer> ids, PartitionMetadata old) {
        int n = size(ids);
        if (n != old.inSyncReplicaCount()) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (id(ids.get(i)) != old.inSyncReplica(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameOffline(List<Integer> ids, PartitionMetadata old) {
        int n = size(ids);
        if (n != old.offlineReplicaCount()) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (id(ids.get(i)) != old.offlineReplica(i)) {
                return false;
            }
        }
        return true;
    }

    /** The wire's ids against an array made of such ids. */
    private static boolean sameIds(List<Integer> ids, int[] array) {
        int n = size(ids);
        if (n != array.length) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (id(ids.get(i)) != array[i]) {
                return false;
            }
        }
        return true;
    }

    private static int size(List<Integer> ids) {
        return ids == null ? 0 : ids.size();
    }

    /** A broker id from the wire; a null element (never sent by a broker) is -1. */
    private static int id(Integer v) {
        return v == null ? -1 : v;
    }

    private static UUID uuid(Uuid id) {
        return id == null || Uuid.ZERO_UUID.equals(id) ? null
                : new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }
}
