package dev.kmeta.metadata;

/**
 * Metadata did not arrive within the wait's budget. The message names the topic, the budget and what was seen
 * meanwhile; {@link #diagnosis()} says why, with the evidence.
 */
public final class MetadataTimeoutException extends MetadataException {
    private static final long serialVersionUID = 1L;

    private final transient Diagnosis diagnosis;

    /** With a message and no diagnosis. */
    MetadataTimeoutException(String message) {
        this(message, null);
    }

    /** With a message and the diagnosis. */
    MetadataTimeoutException(String message, Diagnosis diagnosis) {
        super(message);
        this.diagnosis = diagnosis;
    }

    /**
     * For a producer's own failure that a kmeta diagnosis explains (a queued record that expired, a send that gave up):
     * a timeout with the diagnosis's message and the diagnosis, to put in the failure's cause chain so that
     * {@link Diagnosis#from(Throwable)} finds it. Only kmeta makes diagnoses ({@code KafkaMetadata.diagnose}, a
     * timeout's {@link #diagnosis()}).
     */
    public static MetadataTimeoutException of(Diagnosis diagnosis) {
        java.util.Objects.requireNonNull(diagnosis, "diagnosis");
        return new MetadataTimeoutException(diagnosis.message(), diagnosis);
    }

    /** Why the wait timed out, with the evidence; null only for exceptions made without one. */
    public Diagnosis diagnosis() {
        return diagnosis;
    }
}
