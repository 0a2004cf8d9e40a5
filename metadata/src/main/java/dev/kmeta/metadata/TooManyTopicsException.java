package dev.kmeta.metadata;

/**
 * A new topic would take the subscription table past {@code kmeta.metadata.max.topics}. Nothing was registered and
 * nothing is sent for it.
 */
public final class TooManyTopicsException extends MetadataException {
    private static final long serialVersionUID = 1L;

    /** With a message naming the limit. */
    TooManyTopicsException(String message) {
        super(message);
    }
}
