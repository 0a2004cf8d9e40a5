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
    private final transient Diagnosis diagnosis;

    /** For a topic and a reason. */
    TopicException(String topic, Reason reason, String message) {
        this(topic, reason, message, null);
    }

    /** For a topic and a reason, with the diagnosis and its evidence. */
    TopicException(String topic, Reason reason, String message, Diagnosis diagnosis) {
        super(message);
        this.topic = topic;
        this.reason = reason;
        this.diagnosis = diagnosis;
    }

    /** The diagnosis (TOPIC_NOT_AUTHORIZED with the evidence), or null. */
    public Diagnosis diagnosis() {
        return diagnosis;
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
