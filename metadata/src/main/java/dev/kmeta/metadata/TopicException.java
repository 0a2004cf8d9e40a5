package dev.kmeta.metadata;

/**
 * The brokers refused metadata for one topic: the client may not describe it, or its name is invalid. Every waiter
 * for that topic gets it at once; waiters for other topics are not disturbed.
 */
public final class TopicException extends MetadataException {
    private static final long serialVersionUID = 1L;

    /** Why the topic was refused. */
    public enum Reason {
        /** {@code TOPIC_AUTHORIZATION_FAILED}: no Describe permission on the topic. */
        NOT_AUTHORIZED,
        /** {@code INVALID_TOPIC_EXCEPTION}: the name is not a legal topic name. */
        INVALID_TOPIC
    }

    private final String topic;
    private final Reason reason;

    /** For a topic and a reason. */
    public TopicException(String topic, Reason reason, String message) {
        super(message);
        this.topic = topic;
        this.reason = reason;
    }

    /** The topic. */
    public String topic() {
        return topic;
    }

    /** Why it was refused. */
    public Reason reason() {
        return reason;
    }
}
