package dev.kmeta.sender;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.internal.Failures;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * A metadata wait of {@link KafkaMetadata} timed out, or a producer gave up on a record for the reason kmeta
 * diagnosed ({@link KafkaMetadata#diagnose}): a Kafka {@link TimeoutException}, so the catch blocks a producer already
 * has keep working, that also says why ({@link #diagnosis()}). Its cause is kmeta's own
 * {@link MetadataTimeoutException}. Immutable; thread-safe.
 */
public final class KafkaMetadataTimeoutException extends TimeoutException {
    private static final long serialVersionUID = 1L;

    private final transient Diagnosis diagnosis;

    KafkaMetadataTimeoutException(MetadataTimeoutException cause) {
        super(cause.getMessage(), cause);
        this.diagnosis = cause.diagnosis();
    }

    /**
     * For a producer that fails a record by kmeta's {@link dev.kmeta.metadata.Diagnosis} (e.g. one
     * {@link KafkaMetadata#diagnose} gave for the record's partition): a Kafka {@code TimeoutException} with this
     * message, whose cause is a {@link MetadataTimeoutException} carrying the same diagnosis.
     */
    public KafkaMetadataTimeoutException(String message, Diagnosis diagnosis) {
        this(Failures.make().timeout(message, java.util.Objects.requireNonNull(diagnosis, "diagnosis")));
    }

    /** Why the wait timed out, with the evidence. */
    public Diagnosis diagnosis() {
        return diagnosis;
    }
}
