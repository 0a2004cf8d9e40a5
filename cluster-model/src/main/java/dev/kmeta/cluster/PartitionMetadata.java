package dev.kmeta.cluster;

import dev.kmeta.cluster.internal.OwnedPartitions;
import java.util.Arrays;
import java.util.Objects;

/**
 * One partition of a topic: its leader, the leader's epoch, replicas, in-sync and offline replicas, and the error
 * the broker reported for it.
 *
 * <p>Immutable and thread-safe. Replica lists are held as compact {@code int[]} copies (kmeta's response translator
 * hands over arrays it filled for the purpose instead, through {@code dev.kmeta.cluster.internal.OwnedPartitions});
 * the accessors that return arrays return fresh copies, the indexed accessors ({@link #replica(int)} and friends)
 * allocate nothing.
 * Broker ids only: the {@link Node} behind an id is resolved through the {@link Cluster} that holds this partition.
 */
public final class PartitionMetadata {
    /** The leader id of a partition that has no leader. */
    public static final int NO_LEADER = -1;
    /** The epoch of a leader whose broker did not report one (Kafka's "no epoch"). */
    public static final int NO_EPOCH = -1;
    /** Kafka's error code for "no error". */
    public static final short NONE = 0;
    /** Kafka's error code {@code LEADER_NOT_AVAILABLE}, used for placeholder partitions. */
    public static final short LEADER_NOT_AVAILABLE = 5;

    private static final int[] EMPTY = new int[0];
    /**
     * Handed to the private constructor for an ISR equal to the replica list: the two then share one array (they are
     * never exposed, every accessor copies). In a healthy cluster that is nearly every partition: one {@code int[]}
     * per partition, not two, retained and allocated.
     */
    private static final int[] SAME_AS_REPLICAS = new int[0];

    private final String topic;
    private final int partition;
    private final int leaderId;
    private final int leaderEpoch;
    private final short errorCode;
    private final int[] replicas;
    private final int[] isr;
    private final int[] offlineReplicas;

    static {
        OwnedPartitions.install(new OwnedPartitions.Factory() {
            @Override
            public PartitionMetadata create(String topic, int partition, int leaderId, int leaderEpoch,
                                            int[] replicas, int[] isr, int[] offlineReplicas, short errorCode) {
                return owned(topic, partition, leaderId, leaderEpoch, replicas, isr, offlineReplicas, errorCode);
            }
        });
    }

    /**
     * Creates a partition.
     *
     * @param topic           the topic name, not null
     * @param partition       the partition index, {@code >= 0}
     * @param leaderId        the leader's broker id, or {@link #NO_LEADER} (any negative value means none)
     * @param leaderEpoch     the leader epoch, or {@link #NO_EPOCH} (any negative value means none)
     * @param replicas        replica broker ids (copied), or null for none
     * @param isr             in-sync replica ids (copied), or null for none
     * @param offlineReplicas offline replica ids (copied), or null for none
     * @param errorCode       Kafka's error code for this partition, {@link #NONE} when fine
     * @throws IllegalArgumentException if the partition index is negative
     */
    public PartitionMetadata(String topic, int partition, int leaderId, int leaderEpoch, int[] replicas, int[] isr,
                             int[] offlineReplicas, short errorCode) {
        this(topic, partition, leaderId, leaderEpoch, copy(replicas),
                replicas != null && replicas.length > 0 && Arrays.equals(isr, replicas) ? SAME_AS_REPLICAS : copy(isr),
                copy(offlineReplicas), errorCode, true);
    }

    private PartitionMetadata(String topic, int partition, int leaderId, int leaderEpoch, int[] replicas, int[] isr,
                              int[] offlineReplicas, short errorCode, boolean owned) {
        if (partition < 0) {
            throw new IllegalArgumentException("partition index of topic " + topic + " must be >= 0: " + partition);
        }
        this.topic = Objects.requireNonNull(topic, "topic");
        this.partition = partition;
        this.leaderId = leaderId < 0 ? NO_LEADER : leaderId;
        this.leaderEpoch = leaderEpoch < 0 ? NO_EPOCH : leaderEpoch;
        this.replicas = replicas;
        this.isr = isr == SAME_AS_REPLICAS ? replicas : isr;
        this.offlineReplicas = offlineReplicas;
        this.errorCode = errorCode;
    }

    /** {@link OwnedPartitions#of}: the public constructor without its copies (the caller gives the arrays up). */
    private static PartitionMetadata owned(String topic, int partition, int leaderId, int leaderEpoch, int[] replicas,
                                           int[] isr, int[] offlineReplicas, short errorCode) {
        int[] r = orEmpty(replicas);
        return new PartitionMetadata(topic, partition, leaderId, leaderEpoch, r,
                r.length > 0 && Arrays.equals(isr, r) ? SAME_AS_REPLICAS : orEmpty(isr), orEmpty(offlineReplicas),
                errorCode, true);
    }

    /** A partition with a leader and no replica detail, handy for tests and leader hints. */
    public static PartitionMetadata of(String topic, int partition, int leaderId, int leaderEpoch) {
        return new PartitionMetadata(topic, partition, leaderId, leaderEpoch, EMPTY, EMPTY, EMPTY, NONE, true);
    }

    /** A leaderless placeholder for a partition index that a topic's partition list skipped. */
    static PartitionMetadata placeholder(String topic, int partition) {
        return new PartitionMetadata(topic, partition, NO_LEADER, NO_EPOCH, EMPTY, EMPTY, EMPTY,
                LEADER_NOT_AVAILABLE, true);
    }

    /**
     * This partition with another leader and epoch; replicas and errors are kept (shared, not copied).
     */
    public PartitionMetadata withLeader(int newLeaderId, int newLeaderEpoch) {
        return new PartitionMetadata(topic, partition, newLeaderId, newLeaderEpoch, replicas, isr, offlineReplicas,
                errorCode, true);
    }

    /** The topic this partition belongs to. */
    public String topic() {
        return topic;
    }

    /** The partition index. */
    public int partition() {
        return partition;
    }

    /** The leader's broker id, or {@link #NO_LEADER}. */
    public int leaderId() {
        return leaderId;
    }

    /** True when the partition has a leader. */
    public boolean hasLeader() {
        return leaderId != NO_LEADER;
    }

    /** The leader epoch, or {@link #NO_EPOCH}. */
    public int leaderEpoch() {
        return leaderEpoch;
    }

    /**
     * True when this partition has a leader epoch and it is at least {@code epoch}: a KIP-951 leader hint of that
     * epoch tells nothing new about it (the one rule kmeta's hint handling and the KafkaProducer route both apply).
     */
    public boolean hasLeaderEpochAtLeast(int epoch) {
        return leaderEpoch != NO_EPOCH && leaderEpoch >= epoch;
    }

    /** Kafka's error code for this partition ({@link #NONE} when fine). */
    public short errorCode() {
        return errorCode;
    }

    /** The number of replicas. */
    public int replicaCount() {
        return replicas.length;
    }

    /** The i-th replica's broker id. */
    public int replica(int i) {
        return replicas[i];
    }

    /** The number of in-sync replicas. */
    public int inSyncReplicaCount() {
        return isr.length;
    }

    /** The i-th in-sync replica's broker id. */
    public int inSyncReplica(int i) {
        return isr[i];
    }

    /** The number of offline replicas. */
    public int offlineReplicaCount() {
        return offlineReplicas.length;
    }

    /** The i-th offline replica's broker id. */
    public int offlineReplica(int i) {
        return offlineReplicas[i];
    }

    /**
     * True when the partition has no leader and every replica is on a broker the cluster reports offline (no replica
     * can be elected until its broker returns); false with a replica alive (an election in progress) or none known.
     */
    public boolean everyReplicaOffline() {
        if (hasLeader() || replicas.length == 0) {
            return false;
        }
        for (int r : replicas) {
            boolean offline = false;
            for (int o : offlineReplicas) {
                offline |= o == r;
            }
            if (!offline) {
                return false;
            }
        }
        return true;
    }

    /** A copy of the replica ids. */
    public int[] replicas() {
        return replicas.clone();
    }

    /** A copy of the in-sync replica ids. */
    public int[] inSyncReplicas() {
        return isr.clone();
    }

    /** A copy of the offline replica ids. */
    public int[] offlineReplicas() {
        return offlineReplicas.clone();
    }

    private static int[] copy(int[] ids) {
        return ids == null || ids.length == 0 ? EMPTY : ids.clone();
    }

    private static int[] orEmpty(int[] ids) {
        return ids == null || ids.length == 0 ? EMPTY : ids;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PartitionMetadata)) {
            return false;
        }
        PartitionMetadata p = (PartitionMetadata) o;
        return partition == p.partition && leaderId == p.leaderId && leaderEpoch == p.leaderEpoch
                && errorCode == p.errorCode && topic.equals(p.topic) && Arrays.equals(replicas, p.replicas)
                && Arrays.equals(isr, p.isr) && Arrays.equals(offlineReplicas, p.offlineReplicas);
    }

    @Override
    public int hashCode() {
        int h = topic.hashCode();
        h = 31 * h + partition;
        h = 31 * h + leaderId;
        h = 31 * h + leaderEpoch;
        h = 31 * h + errorCode;
        h = 31 * h + Arrays.hashCode(replicas);
        h = 31 * h + Arrays.hashCode(isr);
        return 31 * h + Arrays.hashCode(offlineReplicas);
    }

    @Override
    public String toString() {
        return topic + "-" + partition + "(leader=" + leaderId + ", epoch=" + leaderEpoch + ", replicas="
                + Arrays.toString(replicas) + ", isr=" + Arrays.toString(isr)
                + (offlineReplicas.length == 0 ? "" : ", offline=" + Arrays.toString(offlineReplicas))
                + (errorCode == NONE ? "" : ", error=" + errorCode) + ")";
    }
}
