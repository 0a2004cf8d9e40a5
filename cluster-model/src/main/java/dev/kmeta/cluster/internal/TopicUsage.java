package dev.kmeta.cluster.internal;

import dev.kmeta.cluster.TopicMetadata;

/**
 * kmeta's own use of a {@link TopicMetadata}: the last time a send found its topic in a snapshot, stamped on the
 * topic object itself, so that a cache hit needs no lookup in the subscriptions to say "this topic is still in use"
 * (bench P1/P2: one hash lookup of three). Not part of the topic's value: {@code equals}, {@code hashCode} and
 * {@code toString} ignore it, and an unchanged topic keeps its object - and its stamp - from snapshot to snapshot.
 *
 * <p>Internal: for kmeta's manager, not an API. Thread-safe: the stamp is a volatile long; racing writers each
 * write a time of their own, and any of them will do.
 */
public final class TopicUsage {
    /** What {@link TopicMetadata} gives this class; installed by its static initializer. */
    public interface Access {
        /** The stamp: the last use recorded, 0 if none. */
        long usedNs(TopicMetadata topic);

        /** Records a use at {@code nowNs}. */
        void markUsed(TopicMetadata topic, long nowNs);
    }

    private static final InstallOnce INSTALL = new InstallOnce(TopicMetadata.class,
            "only dev.kmeta.cluster.TopicMetadata installs the usage stamp, once");
    private static volatile Access access;

    private TopicUsage() {
    }

    /**
     * Called once, by {@link TopicMetadata}'s static initializer (before any topic exists): no global hook, the
     * stamp's one accessor is the topic class's own.
     *
     * @throws IllegalStateException when called again or from another class
     */
    public static void install(Access a) {
        INSTALL.claim(InstallOnce.callerOfInstall());
        access = a;
    }

    /**
     * True when a use was recorded at most {@code granularityNs} before {@code nowNs} (the same clock); false for a
     * topic never marked.
     */
    public static boolean usedWithin(TopicMetadata topic, long nowNs, long granularityNs) {
        long used = access.usedNs(topic);
        return used != 0 && nowNs - used <= granularityNs;
    }

    /** Records a use of {@code topic} at {@code nowNs}. */
    public static void markUsed(TopicMetadata topic, long nowNs) {
        access.markUsed(topic, nowNs == 0 ? 1 : nowNs); // 0 means "never"
    }
}
