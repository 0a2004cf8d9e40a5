package dev.kmeta.cluster;

import dev.kmeta.cluster.internal.TopicAttachment;
import dev.kmeta.cluster.internal.TopicUsage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * One topic: its name, topic id, error, and its partitions indexed by partition number.
 *
 * <p>Immutable and thread-safe (its value: kmeta's manager keeps a usage stamp on the object, see
 * {@code dev.kmeta.cluster.internal.TopicUsage}, and an adapter may cache objects derived from it, see
 * {@code dev.kmeta.cluster.internal.TopicAttachment}; no method here reads either). The partitions with a leader are
 * computed once, when the topic is built, so
 * {@link #availablePartitions()} costs nothing on the send path.
 *
 * <p>Input rules: a partition whose topic is not this topic, a negative partition index or the same index twice is
 * rejected with {@link IllegalArgumentException}, and nothing is built. Indexes a partition list skips (0, 1, 3) are
 * filled with leaderless placeholders whose error is {@link PartitionMetadata#LEADER_NOT_AVAILABLE}, so that
 * {@link #partitionCount()} is always the highest index + 1 and every index below it answers. So that a malformed
 * answer cannot make it allocate a huge array, the highest index must be below the number of partitions given +
 * 65,536 (so at most 65,536 placeholders); {@link #withPartition} likewise accepts an index below
 * {@link #partitionCount()} + 65,536. Both reject anything beyond with {@link IllegalArgumentException} naming the
 * topic and the index.
 */
public final class TopicMetadata {
    /** How far beyond the number of partitions given an index may lie; see the class doc. */
    static final int MAX_GAP = 65536;
    private static final PartitionMetadata[] NO_PARTITIONS = new PartitionMetadata[0];

    private final String name;
    private final UUID topicId;
    private final boolean internal;
    private final short errorCode;
    private final PartitionMetadata[] partitions;
    private final List<PartitionMetadata> available;
    /** kmeta's usage stamp ({@link TopicUsage}); not part of the value. */
    private volatile long usedNs;
    /** An adapter's objects derived from this topic ({@link TopicAttachment}'s two slots); not part of the value. */
    private volatile Object attachment;
    private volatile Object sendAttachment;

    static {
        TopicAttachment.install(new TopicAttachment.Access() {
            @Override
            public Object get(TopicMetadata topic, int slot) {
                return slot == TopicAttachment.SEND ? topic.sendAttachment : topic.attachment;
            }

            @Override
            public void set(TopicMetadata topic, int slot, Object value) {
                if (slot == TopicAttachment.SEND) {
                    topic.sendAttachment = value;
                } else {
                    topic.attachment = value;
                }
            }
        });
        TopicUsage.install(new TopicUsage.Access() {
            @Override
            public long usedNs(TopicMetadata topic) {
                return topic.usedNs;
            }

            @Override
            public void markUsed(TopicMetadata topic, long nowNs) {
                topic.usedNs = nowNs;
            }
        });
    }

    private TopicMetadata(String name, UUID topicId, boolean internal, short errorCode,
                          PartitionMetadata[] partitions) {
        this.name = name;
        this.topicId = topicId;
        this.internal = internal;
        this.errorCode = errorCode;
        this.partitions = partitions;
        this.available = withLeader(partitions);
    }

    /**
     * Builds a topic from a partition list in any order.
     *
     * @param name       the topic name, not null
     * @param topicId    the topic id, or null when the broker did not send one
     * @param internal   whether it is an internal topic
     * @param errorCode  Kafka's topic-level error code ({@link PartitionMetadata#NONE} when fine)
     * @param partitions the partitions, in any order
     * @throws IllegalArgumentException for a foreign, negative or duplicate partition, or an index at or beyond
     *                                  {@code partitions.size() + 65536} (see the class doc)
     */
    public static TopicMetadata of(String name, UUID topicId, boolean internal, short errorCode,
                                   Collection<PartitionMetadata> partitions) {
        Objects.requireNonNull(name, "name");
        return new TopicMetadata(name, topicId, internal, errorCode, index(name, partitions));
    }

    /** A topic with the given partitions, no topic id, no error. */
    public static TopicMetadata of(String name, Collection<PartitionMetadata> partitions) {
        return of(name, null, false, PartitionMetadata.NONE, partitions);
    }

    private static PartitionMetadata[] index(String name, Collection<PartitionMetadata> partitions) {
        if (partitions.isEmpty()) {
            return NO_PARTITIONS;
        }
        int max = -1;
        for (PartitionMetadata p : partitions) {
            if (!name.equals(p.topic())) {
                throw new IllegalArgumentException("partition " + p.partition() + " of topic " + p.topic()
                        + " given for topic " + name);
            }
            max = Math.max(max, p.partition());
        }
        checkIndex(name, max, partitions.size());
        PartitionMetadata[] byIndex = new PartitionMetadata[max + 1];
        for (PartitionMetadata p : partitions) {
            if (byIndex[p.partition()] != null) {
                throw new IllegalArgumentException("partition " + p.partition() + " of topic " + name
                        + " given twice");
            }
            byIndex[p.partition()] = p;
        }
        for (int i = 0; i < byIndex.length; i++) {
            if (byIndex[i] == null) {
                byIndex[i] = PartitionMetadata.placeholder(name, i);
            }
        }
        return byIndex;
    }

    /** Rejects an index that would make the array more than {@link #MAX_GAP} slots longer than {@code given}. */
    private static void checkIndex(String name, int index, int given) {
        if ((long) index >= (long) given + MAX_GAP) {
            throw new IllegalArgumentException("partition " + index + " of topic " + name + " is too far beyond the "
                    + given + " partitions known: indexes must be below " + ((long) given + MAX_GAP));
        }
    }

    private static List<PartitionMetadata> withLeader(PartitionMetadata[] partitions) {
        if (partitions.length == 0) {
            return List.of();
        }
        int n = 0;
        for (PartitionMetadata p : partitions) {
            if (p.hasLeader()) {
                n++;
            }
        }
        if (n == partitions.length) {
            return Collections.unmodifiableList(Arrays.asList(partitions));
        }
        List<PartitionMetadata> list = new ArrayList<>(n);
        for (PartitionMetadata p : partitions) {
            if (p.hasLeader()) {
                list.add(p);
            }
        }
        return Collections.unmodifiableList(list);
    }

    /**
     * This topic with one partition replaced (or added, growing the count). Costs O(partitions of this topic).
     *
     * @throws IllegalArgumentException if the partition belongs to another topic, or its index is at or beyond
     *                                  {@code partitionCount() + 65536}
     */
    public TopicMetadata withPartition(PartitionMetadata partition) {
        if (!name.equals(partition.topic())) {
            throw new IllegalArgumentException("partition of topic " + partition.topic() + " given for " + name);
        }
        int index = partition.partition();
        checkIndex(name, index, partitions.length);
        PartitionMetadata[] copy = Arrays.copyOf(partitions, Math.max(partitions.length, index + 1));
        for (int i = partitions.length; i < copy.length; i++) {
            copy[i] = PartitionMetadata.placeholder(name, i);
        }
        copy[index] = partition;
        return new TopicMetadata(name, topicId, internal, errorCode, copy);
    }

    /**
     * This topic with every leader that is not in {@code nodes} replaced by no leader (the epoch is kept), or this
     * very object when every leader is known.
     */
    TopicMetadata withKnownLeaders(NodeIndex nodes) {
        PartitionMetadata[] copy = null;
        for (int i = 0; i < partitions.length; i++) {
            PartitionMetadata p = partitions[i];
            if (p.hasLeader() && nodes.get(p.leaderId()) == null) {
                if (copy == null) {
                    copy = partitions.clone();
                }
                copy[i] = p.withLeader(PartitionMetadata.NO_LEADER, p.leaderEpoch());
            }
        }
        return copy == null ? this : new TopicMetadata(name, topicId, internal, errorCode, copy);
    }

    /** The topic name. */
    public String name() {
        return name;
    }

    /** The topic id, or null when unknown. */
    public UUID topicId() {
        return topicId;
    }

    /** Whether the topic is internal ({@code __consumer_offsets} and the like). */
    public boolean isInternal() {
        return internal;
    }

    /** Kafka's topic-level error code. */
    public short errorCode() {
        return errorCode;
    }

    /** The number of partitions (the highest index + 1). */
    public int partitionCount() {
        return partitions.length;
    }

    /** Partition {@code index}, or null if out of range. Allocation-free. */
    public PartitionMetadata partition(int index) {
        return index >= 0 && index < partitions.length ? partitions[index] : null;
    }

    /** The partitions with a leader, in index order; an unmodifiable list computed once. */
    public List<PartitionMetadata> availablePartitions() {
        return available;
    }

    /** All partitions in index order, as an unmodifiable list (allocates a small view). */
    public List<PartitionMetadata> partitions() {
        return Collections.unmodifiableList(Arrays.asList(partitions));
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TopicMetadata)) {
            return false;
        }
        TopicMetadata t = (TopicMetadata) o;
        return internal == t.internal && errorCode == t.errorCode && name.equals(t.name)
                && Objects.equals(topicId, t.topicId) && Arrays.equals(partitions, t.partitions);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, topicId, internal, errorCode) * 31 + Arrays.hashCode(partitions);
    }

    @Override
    public String toString() {
        return "Topic(" + name + (topicId == null ? "" : ", id=" + topicId) + ", partitions=" + partitions.length
                + ", available=" + available.size() + (errorCode == PartitionMetadata.NONE ? "" : ", error="
                + errorCode) + ")";
    }
}
