package dev.kmeta.metadata;

/**
 * Metadata did not arrive within the wait's budget. The message names the topic, the budget and what was seen
 * meanwhile.
 */
public class MetadataTimeoutException extends MetadataException {
    private static final long serialVersionUID = 1L;

    /** With a message. */
    public MetadataTimeoutException(String message) {
        super(message);
    }
}
