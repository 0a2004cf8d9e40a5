package dev.kmeta.metadata;

/**
 * A failure no retry will fix by itself (authentication failed, the broker does not support the request version):
 * it reaches every waiter at once. The cause is the original error from the wire.
 */
public final class MetadataFatalException extends MetadataException {
    private static final long serialVersionUID = 1L;

    private final transient Diagnosis diagnosis;

    /** With a message and the wire's error. */
    MetadataFatalException(String message, Throwable cause) {
        this(message, cause, null);
    }

    /** With a message, the wire's error and the diagnosis. */
    MetadataFatalException(String message, Throwable cause, Diagnosis diagnosis) {
        super(message, cause);
        this.diagnosis = diagnosis;
    }

    /** Which security problem it is (AUTHENTICATION_FAILED or TLS_HANDSHAKE_FAILED), with the evidence; or null. */
    public Diagnosis diagnosis() {
        return diagnosis;
    }
}
