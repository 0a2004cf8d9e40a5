package dev.kmeta.producer.internal.view;

import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.cluster.internal.TopicAttachment;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.Uuid;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;

/**
 * Kafka's objects for one kmeta {@link TopicMetadata} over one broker set: its {@link PartitionInfo}s (what a
 * {@link Cluster} is made of; leader epochs are read from the kmeta topic itself, {@link ScopedMetadataSnapshot}) and,
 * on first use by a sending thread, a {@link Cluster} of this topic alone. Kept in the topic object's attachment slot
 * ({@link TopicAttachment}), so an unchanged topic keeps them from snapshot to snapshot and every producer of an
 * instance shares them: a view of N topics costs hashing of what it holds, not allocating it again. Replica, ISR and
 * offline arrays equal in content are one object within a topic.
 *
 * <p>Thread-safe: immutable but for the lazily built parts (volatile; two threads racing build equal objects and
 * either is kept).
 */
final class TopicParts {
    final TopicMetadata source;
    final KafkaNodes nodes;
    final List<PartitionInfo> infos;
    final Uuid topicId;
    /**
     * Each partition's leader epoch, by index, as the {@code OptionalInt} the Sender's ready check and drain ask for on
     * every loop ({@link ScopedMetadataSnapshot#leaderEpochFor}): made once per topic object, so the network thread
     * allocates none (kafka-clients' own snapshot makes one per partition per loop). Values below
     * {@link #SHARED_EPOCHS} are shared objects: an array slot per partition.
     */
    private final OptionalInt[] epochs;
    private volatile Cluster alone;
    /**
     * The {@code Cluster} of the network-thread view the instance last kept with these parts (any producer's;
     * {@link #madeInto}): a view that holds this topic, as this object has it, over these brokers - what a sending
     * thread's fetch() may show for a send to it ({@link #sendView}). Null before the first such view, and once that
     * view is dropped ({@link #unmade}).
     */
    private volatile Cluster inView;

    private TopicParts(TopicMetadata source, KafkaNodes nodes) {
        this.source = source;
        this.nodes = nodes;
        this.topicId = uuid(source.topicId());
        this.infos = Collections.unmodifiableList(buildInfos(source, nodes));
        this.epochs = buildEpochs(source);
    }

    /** Partition {@code index}'s leader epoch; empty when the brokers gave none or the topic has no such partition. */
    OptionalInt epoch(int index) {
        return index >= 0 && index < epochs.length ? epochs[index] : OptionalInt.empty();
    }

    /**
     * The parts of {@code topic} over {@code nodes}: the ones in its slot when they were made over the same broker
     * set, else new ones (then stored in the slot). O(1) and allocation-free on a hit; O(partitions) otherwise.
     *
     * @param built    counts a build (the caller's statistics)
     * @param sendPath whether a sending thread asks (for the statistics)
     */
    static TopicParts of(TopicMetadata topic, KafkaNodes nodes, ViewStats built, boolean sendPath) {
        Object cached = TopicAttachment.get(topic, TopicAttachment.VIEW);
        if (cached instanceof TopicParts && ((TopicParts) cached).nodes.source == nodes.source) {
            return (TopicParts) cached;
        }
        TopicParts parts = new TopicParts(topic, nodes);
        TopicAttachment.set(topic, TopicAttachment.VIEW, parts);
        built.partsBuilt(topic.partitionCount(), sendPath);
        return parts;
    }

    /** This topic alone in a Kafka {@link Cluster} (with every broker), built once: a sending thread's view. */
    Cluster alone(String clusterId, ViewStats built) {
        Cluster c = alone;
        if (c == null) {
            String name = source.name();
            c = new Cluster(clusterId, nodes.list, infos, Set.of(), Set.of(),
                    source.isInternal() ? Set.of(name) : Set.of(), null,
                    topicId == null ? Map.of() : Map.of(name, topicId));
            alone = c;
            built.topicViewBuilt(infos.size());
        }
        return c;
    }

    /**
     * A {@code Cluster} holding {@code topic} as this very object has it over the broker list {@code brokers} (the
     * current snapshot's): the network-thread view the instance last kept with its parts, or null. The sending thread's fetch()
     * on its hit path: the topic object's slot, its parts and their broker set - no per-producer map is read.
     */
    static Cluster sendView(TopicMetadata topic, List<dev.kmeta.cluster.Node> brokers) {
        Object kept = TopicAttachment.get(topic, TopicAttachment.VIEW);
        if (!(kept instanceof TopicParts)) {
            return null;
        }
        TopicParts parts = (TopicParts) kept;
        return parts.nodes.source == brokers ? parts.inView : null;
    }

    /**
     * A network-thread view the instance keeps holds these parts: its {@code Cluster} is what {@link #sendView} shows
     * now.
     */
    void madeInto(Cluster view) {
        inView = view;
    }

    /** {@code view} was dropped: if {@link #sendView} shows it, it shows none now (a race loses a hint, no more). */
    void unmade(Cluster view) {
        if (inView == view) {
            inView = null;
        }
    }

    /** Empties {@code topic}'s slot of the route's objects (its last producer closed; the instance lives on). */
    static void forget(TopicMetadata topic) {
        if (TopicAttachment.get(topic, TopicAttachment.VIEW) instanceof TopicParts) {
            TopicAttachment.set(topic, TopicAttachment.VIEW, null);
        }
    }

    /** Drops the single-topic view (a producer view now holds this topic): it was only for the moments between. */
    void forgetAlone() {
        if (alone != null) {
            alone = null;
        }
    }

    private static List<PartitionInfo> buildInfos(TopicMetadata t, KafkaNodes nodes) {
        String name = t.name();
        Map<IntsKey, Node[]> shared = new HashMap<>();
        List<PartitionInfo> out = new ArrayList<>(t.partitionCount());
        for (PartitionMetadata p : t.partitions()) {
            out.add(new PartitionInfo(name, p.partition(), p.hasLeader() ? nodes.node(p.leaderId()) : null,
                    shared.computeIfAbsent(new IntsKey(p.replicas()), k -> nodes.nodes(k.ids)),
                    shared.computeIfAbsent(new IntsKey(p.inSyncReplicas()), k -> nodes.nodes(k.ids)),
                    shared.computeIfAbsent(new IntsKey(p.offlineReplicas()), k -> nodes.nodes(k.ids))));
        }
        return out;
    }

    private static final int SHARED_EPOCHS = 1024;
    private static final OptionalInt[] SHARED = new OptionalInt[SHARED_EPOCHS];

    static {
        for (int i = 0; i < SHARED_EPOCHS; i++) {
            SHARED[i] = OptionalInt.of(i);
        }
    }

    private static OptionalInt[] buildEpochs(TopicMetadata t) {
        OptionalInt[] out = new OptionalInt[t.partitionCount()];
        for (int i = 0; i < out.length; i++) {
            PartitionMetadata p = t.partition(i);
            int e = p == null ? PartitionMetadata.NO_EPOCH : p.leaderEpoch();
            out[i] = e < 0 ? OptionalInt.empty() // PartitionMetadata.NO_EPOCH (-1), none given
                    : e < SHARED_EPOCHS ? SHARED[e] : OptionalInt.of(e);
        }
        return out;
    }

    private static Uuid uuid(UUID id) {
        return id == null ? null : new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /** An int array as a map key, by content. */
    private static final class IntsKey {
        final int[] ids;
        private final int hash;

        IntsKey(int[] ids) {
            this.ids = ids;
            this.hash = Arrays.hashCode(ids);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof IntsKey && Arrays.equals(ids, ((IntsKey) o).ids);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
