package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.internal.RefreshResponse;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Turns a kafka-clients {@link MetadataResponse} into the manager's {@link RefreshResponse} - the one place where
 * the wire's shapes meet kmeta's. It reads the raw {@link MetadataResponseData} (no per-partition objects of
 * kafka-clients' own, no {@code TopicPartition}), copies what it needs into compact form, keeps no reference to the
 * response, and reuses the previous snapshot's {@link Node} objects when a broker did not change.
 *
 * <p>Hostile input is normalized, never trusted: a broker id listed twice keeps its first entry; a topic without a
 * name is skipped; a partition with a negative index or an index listed twice keeps only its first good entry; a
 * topic the snapshot model rejects (e.g. an absurd partition index) is skipped with a warning. Epochs are dropped
 * (set to "no epoch") when the response version is too old to carry reliable ones (below 9).
 *
 * <p>Stateless and thread-safe.
 */
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
        Map<String, TopicMetadata> topics = new LinkedHashMap<>(Math.max(16, data.topics().size() * 4 / 3 + 1));
        for (MetadataResponseData.MetadataResponseTopic t : data.topics()) {
            String name = t.name();
            if (name == null || name.isEmpty() || topics.containsKey(name)) {
                continue;
            }
            TopicMetadata topic = topic(name, t, epochsTrusted, previous);
            if (topic != null) {
                topics.put(name, topic);
            }
        }
        String clusterId = data.clusterId();
        return new RefreshResponse(clusterId, data.controllerId(), brokers, topics, epochsTrusted, data.errorCode());
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
     * A partition the snapshot already holds exactly as the wire says is reused, not rebuilt: a periodic refresh of
     * an unchanged cluster then allocates next to nothing per partition (bench P2), and the merge keeps it anyway.
     */
    private static TopicMetadata topic(String name, MetadataResponseData.MetadataResponseTopic t,
                                       boolean epochsTrusted, Cluster previous) {
        if (t.partitions().isEmpty()) { // an error-only topic (unknown, refused): most of a 1,000-topic miss answer
            return of(name, t, List.of());
        }
        TopicMetadata known = previous.topic(name);
        List<PartitionMetadata> partitions = new ArrayList<>(t.partitions().size());
        BitSet seen = new BitSet();
        for (MetadataResponseData.MetadataResponsePartition p : t.partitions()) {
            int index = p.partitionIndex();
            if (index < 0 || seen.get(index)) {
                continue;
            }
            seen.set(index);
            int epoch = epochsTrusted ? p.leaderEpoch() : -1;
            PartitionMetadata old = known == null ? null : known.partition(index);
            partitions.add(old != null && sameAs(old, p, epoch) ? old : new PartitionMetadata(name, index,
                    p.leaderId(), epoch, ints(p.replicaNodes()), ints(p.isrNodes()), ints(p.offlineReplicas()),
                    p.errorCode()));
        }
        return of(name, t, partitions);
    }

    private static TopicMetadata of(String name, MetadataResponseData.MetadataResponseTopic t,
                                    List<PartitionMetadata> partitions) {
        try {
            return TopicMetadata.of(name, uuid(t.topicId()), t.isInternal(), t.errorCode(), partitions);
        } catch (RuntimeException bad) { // IllegalArgumentException by contract; anything else is a model bug
            log.warn("Ignoring unusable metadata for topic {}: {}", name, bad.getMessage());
            return null;
        }
    }

    /** True when {@code old} is what {@code new PartitionMetadata(...)} of {@code p} would be (it normalizes too). */
    private static boolean sameAs(PartitionMetadata old, MetadataResponseData.MetadataResponsePartition p, int epoch) {
        return old.leaderId() == Math.max(p.leaderId(), PartitionMetadata.NO_LEADER)
                && old.leaderEpoch() == Math.max(epoch, PartitionMetadata.NO_EPOCH)
                && old.errorCode() == p.errorCode()
                && sameIds(p.replicaNodes(), old, REPLICAS)
                && sameIds(p.isrNodes(), old, ISR)
                && sameIds(p.offlineReplicas(), old, OFFLINE);
    }

    private static final int REPLICAS = 0;
    private static final int ISR = 1;
    private static final int OFFLINE = 2;

    /** The wire's ids against one of {@code old}'s id lists, without copying either. */
    private static boolean sameIds(List<Integer> ids, PartitionMetadata old, int which) {
        int n = ids == null ? 0 : ids.size();
        int count = which == REPLICAS ? old.replicaCount() : which == ISR ? old.isrCount() : old.offlineCount();
        if (n != count) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            Integer v = ids.get(i);
            int id = which == REPLICAS ? old.replica(i) : which == ISR ? old.isr(i) : old.offline(i);
            if ((v == null ? -1 : v) != id) {
                return false;
            }
        }
        return true;
    }

    private static UUID uuid(Uuid id) {
        return id == null || Uuid.ZERO_UUID.equals(id) ? null
                : new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    private static int[] ints(List<Integer> ids) {
        if (ids == null || ids.isEmpty()) {
            return null;
        }
        int[] out = new int[ids.size()];
        for (int i = 0; i < out.length; i++) {
            Integer v = ids.get(i);
            out[i] = v == null ? -1 : v;
        }
        return out;
    }
}
