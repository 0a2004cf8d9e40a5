package dev.kmeta.metadata;

/**
 * The thread waiting for metadata was interrupted: the wait ended at once, the thread's interrupt status is still
 * set (kmeta does not clear it), and the topic stays subscribed, so a later send finds its metadata.
 * {@code KafkaMetadata} turns it into Kafka's {@code InterruptException}.
 */
public final class MetadataInterruptedException extends MetadataException {
    private static final long serialVersionUID = 1L;

    /** With a message saying what was waited for. */
    MetadataInterruptedException(String message) {
        super(message);
    }
}
