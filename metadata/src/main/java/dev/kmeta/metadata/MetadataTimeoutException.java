package dev.kmeta.metadata;

/**
 * Metadata did not arrive within the wait's budget. The message names the topic, the budget and what was seen
 * meanwhile; {@link #diagnosis()} says why, with the evidence.
 */
public class MetadataTimeoutException extends MetadataException {
    private static final long serialVersionUID = 1L;

    private final transient Diagnosis diagnosis;

    /** With a message and no diagnosis. */
    public MetadataTimeoutException(String message) {
        this(message, null);
    }

    /** With a message and the diagnosis. */
    public MetadataTimeoutException(String message, Diagnosis diagnosis) {
        super(message);
        this.diagnosis = diagnosis;
    }

    /** Why the wait timed out, with the evidence; null only for exceptions made without one. */
    public Diagnosis diagnosis() {
        return diagnosis;
    }
}
