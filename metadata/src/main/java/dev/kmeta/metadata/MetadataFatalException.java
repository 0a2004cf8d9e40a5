package dev.kmeta.metadata;

/**
 * A failure no retry will fix by itself (authentication failed, the broker does not support the request version):
 * it reaches every waiter at once. The cause is the original error from the wire.
 */
public final class MetadataFatalException extends MetadataException {
    private static final long serialVersionUID = 1L;

    /** With a message and the wire's error. */
    public MetadataFatalException(String message, Throwable cause) {
        super(message, cause);
    }
}
