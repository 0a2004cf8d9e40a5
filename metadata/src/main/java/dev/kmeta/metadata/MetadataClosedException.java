package dev.kmeta.metadata;

/** The metadata client was closed before or while the caller waited. */
public final class MetadataClosedException extends MetadataException {
    private static final long serialVersionUID = 1L;

    /** With a message. */
    MetadataClosedException(String message) {
        super(message);
    }
}
