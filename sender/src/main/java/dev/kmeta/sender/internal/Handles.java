package dev.kmeta.sender.internal;

import dev.kmeta.cluster.internal.InstallOnce;
import dev.kmeta.sender.KafkaMetadata;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Calls on {@link KafkaMetadata} handles that only kmeta's own modules make, kept off the public API (issue 25): whether
 * two handles share one instance (kmeta-spring keeps one binding per instance, kmeta.producer's tests check sharing)
 * the current snapshot as an {@code org.apache.kafka.common.Cluster}, an uncounted wait for a new version, and a slot
 * for what an adapter shares once per instance. The
 * module exports this package only to
 * {@code kmeta.producer} and {@code kmeta.spring}.
 *
 * <p>Thread-safe: {@code KafkaMetadata}'s class initializer installs the one {@link Lens} (before any handle
 * exists); the calls read it and the handle's own thread-safe state.
 */
public final class Handles {
    private static final InstallOnce INSTALL = new InstallOnce(KafkaMetadata.class,
            "only dev.kmeta.sender.KafkaMetadata installs the lens, once");
    private static volatile Lens lens;

    private Handles() {
    }

    /** How this package sees a handle's instance; {@code KafkaMetadata} lends it. */
    public interface Lens {
        /** The instance behind {@code handle}. */
        SenderCore core(KafkaMetadata handle);
    }

    /**
     * Installs the lens; once, from {@code KafkaMetadata}'s class initializer.
     *
     * @throws IllegalStateException when called again or from another class
     */
    public static void install(Lens l) {
        INSTALL.claim(InstallOnce.callerOfInstall());
        lens = Objects.requireNonNull(l, "lens");
    }

    /**
     * The identity of {@code handle}'s instance: the same object for every handle of one instance, another for any
     * other instance. Opaque; for keying what a module keeps per instance (drop it when the instance closes).
     */
    public static Object instanceOf(KafkaMetadata handle) {
        return lens.core(handle);
    }

    /** True when both handles share one instance (false for a null {@code b}). */
    public static boolean sameInstance(KafkaMetadata a, KafkaMetadata b) {
        return b != null && lens.core(a) == lens.core(b);
    }

    /**
     * Parks until {@code handle}'s snapshot version is past {@code lastVersion}, its instance closes, the thread is
     * interrupted or {@code maxNanos} pass on the system's clock; uncounted (the KafkaProducer route's network thread
     * before kmeta's first answer: {@code MetadataManager.parkUntilNewVersion}).
     */
    public static void parkUntilNewVersion(KafkaMetadata handle, int lastVersion, long maxNanos) {
        lens.core(handle).manager().parkUntilNewVersion(lastVersion, maxNanos);
    }

    /**
     * Parks on {@code handle}'s instance's ticker for at most {@code maxNanos}, until a new version, a connection
     * outcome, close or an interrupt, unless {@code stillWaiting} (checked once queued) says no; uncounted
     * ({@code MetadataManager.parkUntilChange}): the KafkaProducer route's holds and first-request steer.
     */
    public static void parkUntilChange(KafkaMetadata handle, long maxNanos, java.util.function.BooleanSupplier stillWaiting) {
        lens.core(handle).manager().parkUntilChange(maxNanos, stillWaiting);
    }

    /**
     * Runs {@code listener} on {@code handle}'s instance's sender thread after each new version it publishes to
     * waiters (and at close); returns what removes it ({@code MetadataManager.onNewVersion}): how kmeta's answer wakes
     * the KafkaProducer route's network thread, which sleeps in its producer's selector.
     */
    public static Runnable onNewVersion(KafkaMetadata handle, Runnable listener) {
        return lens.core(handle).manager().onNewVersion(listener);
    }

    /**
     * {@code handle}'s current snapshot as an {@code org.apache.kafka.common.Cluster}, built once per snapshot: what a
     * Kafka {@code Partitioner} reads. Its nodes carry each broker's rack (KIP-1123).
     */
    public static org.apache.kafka.common.Cluster kafkaCluster(KafkaMetadata handle) {
        return lens.core(handle).clusterView().of(handle.fetch());
    }

    /**
     * {@code handle}'s current snapshot, read from its instance's manager without passing through the handle and the
     * instance (two objects fewer): the KafkaProducer route's per-send reads, where each object is a cache miss when
     * the caches went cold between sends (issue 38). The same snapshot {@code handle.fetch()} returns.
     */
    public static java.util.function.Supplier<dev.kmeta.cluster.Cluster> snapshots(KafkaMetadata handle) {
        return lens.core(handle).manager();
    }

    /**
     * A slot on {@code handle}'s instance for what an adapter shares between the users of that instance (the
     * KafkaProducer route keeps its producers' shared Kafka views there): one per instance, empty when the instance
     * starts, gone with it - no JVM-wide registry to clean. Any thread; compare-and-set to fill it.
     */
    public static AtomicReference<Object> adapterSlot(KafkaMetadata handle) {
        return lens.core(handle).adapterSlot();
    }
}
