package dev.kmeta.producer.internal.view;

import dev.kmeta.cluster.TopicMetadata;
import org.apache.kafka.common.Cluster;

/**
 * A producer's look at one of its topics in kmeta's snapshot of one version: the topic's entry there, and what the
 * send path learned of it on that version - that every leader of the topic accepted a connection ({@link #isProven}),
 * and the view a sending thread's {@code fetch()} shows for it ({@link ProducerViews#forSend}). Made by the first send
 * to the topic on that version ({@link ProducerViews#look}); every later send on it reads this one object, which the
 * send's other calls read anyway, instead of the topic's entry, its leader proof, its parts and its view: objects a
 * send meets cold when the caches went cold between sends (issue 38).
 *
 * <p>Thread-safe: the version and entry are final; the proof flag and the view are caches that any sending thread
 * fills (a lost write repeats a lookup, no more). The view is only ever the producer's own network-thread view, and
 * its network thread drops the looks when the snapshot changes or it replaces that view, so a look pins no view past
 * it.
 */
public final class TopicLook {
    final int version;
    final TopicMetadata entry;
    private volatile boolean proven;
    /** The producer's network-thread view {@link ProducerViews#forSend} showed on this version, or null. */
    volatile Cluster view;

    TopicLook(int version, TopicMetadata entry) {
        this.version = version;
        this.entry = entry;
    }

    /** The topic's entry in the snapshot of this look's version; null when that snapshot does not have it. */
    public TopicMetadata entry() {
        return entry;
    }

    /**
     * True once a send saw every leader of the topic, over this version's brokers, accept a connection (or have no
     * leader): a proof never goes back, so every send on this version is sendable as far as the leader hold goes.
     */
    public boolean isProven() {
        return proven;
    }

    /** Notes {@link #isProven}. */
    public void proven() {
        proven = true;
    }
}
