package dev.kmeta.cluster.internal;

import dev.kmeta.cluster.TopicMetadata;

/**
 * One slot on a {@link TopicMetadata} for objects an adapter derives from that topic - the KafkaProducer route keeps
 * Kafka's {@code PartitionInfo}s and per-topic {@code Cluster} view there - so that they live exactly as long as the
 * topic object: an unchanged topic keeps its object, and so its derived objects, from snapshot to snapshot; a changed
 * topic is a new object with an empty slot; a topic dropped from every snapshot takes its derived objects with it (no
 * map to clean, nothing retained after close). Not part of the topic's value: {@code equals}, {@code hashCode} and
 * {@code toString} ignore it.
 *
 * <p>Internal: for kmeta's modules, not an API. Thread-safe: the slot is a volatile reference; racing writers each
 * store an object derived from the same topic, and any of them will do (a cache, as {@code String}'s hash).
 */
public final class TopicAttachment {
    /** What {@link TopicMetadata} gives this class; installed by its static initializer. */
    public interface Access {
        /** The slot's content, or null. */
        Object get(TopicMetadata topic);

        /** Replaces the slot's content. */
        void set(TopicMetadata topic, Object value);
    }

    private static final InstallOnce INSTALL = new InstallOnce(TopicMetadata.class,
            "only dev.kmeta.cluster.TopicMetadata installs the attachment slot, once");
    private static volatile Access access;

    private TopicAttachment() {
    }

    /**
     * Called once, by {@link TopicMetadata}'s static initializer (before any topic exists).
     *
     * @throws IllegalStateException when called again or from another class
     */
    public static void install(Access a) {
        INSTALL.claim(InstallOnce.callerOfInstall());
        access = a;
    }

    /** What the slot of {@code topic} holds, or null. */
    public static Object get(TopicMetadata topic) {
        return access.get(topic);
    }

    /** Stores {@code value} in the slot of {@code topic} (null empties it). */
    public static void set(TopicMetadata topic, Object value) {
        access.set(topic, value);
    }
}
