package dev.kmeta.cluster.internal;

import dev.kmeta.cluster.TopicMetadata;

/**
 * Two slots on a {@link TopicMetadata} for objects an adapter derives from that topic - the KafkaProducer route keeps
 * Kafka's {@code PartitionInfo}s and per-topic {@code Cluster} view in {@link #VIEW}, and how far the topic's leaders
 * are proven reachable in {@link #SEND} (read by every send) - so that they live exactly as long as the
 * topic object: an unchanged topic keeps its object, and so its derived objects, from snapshot to snapshot; a changed
 * topic is a new object with an empty slot; a topic dropped from every snapshot takes its derived objects with it (no
 * map to clean, nothing retained after close). Not part of the topic's value: {@code equals}, {@code hashCode} and
 * {@code toString} ignore it.
 *
 * <p>Internal: for kmeta's modules, not an API. Thread-safe: a slot is a volatile reference; racing writers each
 * store an object derived from the same topic, and any of them will do (a cache, as {@code String}'s hash).
 */
public final class TopicAttachment {
    /** What {@link TopicMetadata} gives this class; installed by its static initializer. */
    public interface Access {
        /** The content of slot {@code slot} ({@link #VIEW} or {@link #SEND}), or null. */
        Object get(TopicMetadata topic, int slot);

        /** Replaces the content of slot {@code slot}. */
        void set(TopicMetadata topic, int slot, Object value);
    }

    /** The slot of the KafkaProducer route's views (Kafka's objects for the topic). */
    public static final int VIEW = 0;
    /** The slot of the KafkaProducer route's send path (what a send reads of the topic besides its entry). */
    public static final int SEND = 1;

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

    /** What slot {@code slot} ({@link #VIEW}, {@link #SEND}) of {@code topic} holds, or null. */
    public static Object get(TopicMetadata topic, int slot) {
        return access.get(topic, slot);
    }

    /** Stores {@code value} in slot {@code slot} of {@code topic} (null empties it). */
    public static void set(TopicMetadata topic, int slot, Object value) {
        access.set(topic, slot, value);
    }
}
