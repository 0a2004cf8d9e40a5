package dev.kmeta.metadata.internal;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What the manager asks the sender to fetch: every subscribed topic (FULL) or only the new ones (PARTIAL).
 *
 * <p>Immutable and thread-safe. Made by the manager on the sender thread, sent as one Kafka {@code MetadataRequest}
 * by the sender, and handed back to the manager with its answer so the manager knows what the answer covers.
 */
public final class RefreshRequest {
    private final long id;
    private final boolean full;
    private final Set<String> topics;
    private final boolean allowAutoTopicCreation;

    /**
     * @param id                     a number unique within one manager, increasing
     * @param full                   true for all subscribed topics, false for new topics only
     * @param topics                 the topic names to ask for (may be empty: then only brokers are asked for)
     * @param allowAutoTopicCreation the request's auto-creation flag ({@code allow.auto.create.topics})
     */
    public RefreshRequest(long id, boolean full, Set<String> topics, boolean allowAutoTopicCreation) {
        this(id, full, allowAutoTopicCreation, Collections.unmodifiableSet(new LinkedHashSet<>(topics)));
    }

    private RefreshRequest(long id, boolean full, boolean allowAutoTopicCreation, Set<String> topics) {
        this.id = id;
        this.full = full;
        this.topics = topics;
        this.allowAutoTopicCreation = allowAutoTopicCreation;
    }

    /**
     * A request holding {@code topics} itself, not a copy: the state machine's, which nothing changes afterwards (a
     * full request's set is the subscriptions' stable copy, the same object while they do not change).
     */
    static RefreshRequest holding(long id, boolean full, Set<String> unmodifiableTopics,
                                  boolean allowAutoTopicCreation) {
        return new RefreshRequest(id, full, allowAutoTopicCreation, unmodifiableTopics);
    }

    /** The request's number within its manager. */
    public long id() {
        return id;
    }

    /** True when it covers every subscribed topic. */
    public boolean isFull() {
        return full;
    }

    /** The topic names asked for. */
    public Set<String> topics() {
        return topics;
    }

    /** Whether the broker may create missing topics. */
    public boolean allowAutoTopicCreation() {
        return allowAutoTopicCreation;
    }

    @Override
    public String toString() {
        return "RefreshRequest(#" + id + ", " + (full ? "FULL" : "PARTIAL") + ", " + topics.size() + " topics)";
    }
}
