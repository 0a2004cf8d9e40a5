package dev.kmeta.metadata;

/**
 * The base of every exception kmeta's metadata API throws. Unchecked, like Kafka's {@code KafkaException}. Only kmeta
 * constructs them (their constructors are package-private).
 */
public class MetadataException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** With a message. */
    MetadataException(String message) {
        super(message);
    }

    /** With a message and a cause. */
    MetadataException(String message, Throwable cause) {
        super(message, cause);
    }
}
