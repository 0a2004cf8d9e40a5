package dev.kmeta.metadata;

/**
 * The base of every exception kmeta's metadata API throws. Unchecked, like Kafka's {@code KafkaException}.
 */
public class MetadataException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** With a message. */
    public MetadataException(String message) {
        super(message);
    }

    /** With a message and a cause. */
    public MetadataException(String message, Throwable cause) {
        super(message, cause);
    }
}
