package dev.kmeta.cluster.internal;

import dev.kmeta.cluster.PartitionMetadata;

/**
 * kmeta's own way to build a {@link PartitionMetadata} from id arrays made for it: the arrays are taken over, not
 * copied (the public constructor copies each one, so a translator that fills fresh arrays from the wire allocated
 * every array twice). Everything else is as the public constructor does it: a negative leader or epoch means none,
 * a null or empty array means no ids, and an ISR equal to the replica list (the very same array, or equal ids)
 * shares the replicas' array.
 *
 * <p>Internal: for kmeta's response translator, not an API. The caller gives the arrays up: it must not keep, change
 * or hand out any array it passes (the partition's accessors still copy, so nothing outside sees them either).
 * Thread-safe.
 */
public final class OwnedPartitions {
    /** What {@link PartitionMetadata} gives this class; installed once by its static initializer. */
    public interface Factory {
        /** A partition holding the given arrays themselves. */
        PartitionMetadata create(String topic, int partition, int leaderId, int leaderEpoch, int[] replicas,
                                 int[] isr, int[] offlineReplicas, short errorCode);
    }

    // No initializer: PartitionMetadata's static initializer may install the factory while this class initializes.
    private static final InstallOnce INSTALL = new InstallOnce(null, "the partition factory is installed already");
    private static volatile Factory factory;

    static {
        try { // PartitionMetadata installs the factory when it initializes; make sure it has, whoever came first
            Class.forName(PartitionMetadata.class.getName(), true, PartitionMetadata.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private OwnedPartitions() {
    }

    /**
     * Called by {@link PartitionMetadata}'s static initializer; once.
     *
     * @throws IllegalStateException if a factory is installed already
     */
    public static void install(Factory f) {
        INSTALL.claim(null);
        factory = f;
    }

    /**
     * A partition that holds {@code replicas}, {@code isr} and {@code offlineReplicas} themselves (see the class doc);
     * otherwise as {@link PartitionMetadata#PartitionMetadata(String, int, int, int, int[], int[], int[], short)}.
     *
     * @throws IllegalArgumentException if the partition index is negative
     */
    public static PartitionMetadata of(String topic, int partition, int leaderId, int leaderEpoch, int[] replicas,
                                       int[] isr, int[] offlineReplicas, short errorCode) {
        return factory.create(topic, partition, leaderId, leaderEpoch, replicas, isr, offlineReplicas, errorCode);
    }
}
