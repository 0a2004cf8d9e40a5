package dev.kmeta.metadata;

import java.util.List;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Diagnosis#from}: found through causes and through exceptions suppressed anywhere in the chain. */
class DiagnosisFromTest {
    private static final Diagnosis D = new Diagnosis(Diagnosis.Cause.TOPIC_NOT_FOUND, "t", -1, 1000, "seen", "fix",
            List.of(), -1, null, null);

    @Test
    void foundThroughTheCauseChain() {
        RuntimeException e = new RuntimeException("outer", new IllegalStateException(new MetadataTimeoutException("m", D)));
        assertEquals(D, Diagnosis.from(e).orElseThrow());
    }

    @Test
    void foundInASuppressedExceptionWhoseOwnCauseCarriesIt() {
        // KafkaProducer's fallback timeout with Kafka's error as cause: kmeta's reason is added as suppressed,
        // itself a Kafka-type wrapper whose cause carries the diagnosis.
        RuntimeException timeout = new RuntimeException("Topic t not present", new IllegalArgumentException("kafka"));
        timeout.addSuppressed(new RuntimeException("kafka type", new MetadataTimeoutException("m", D)));
        assertEquals(D, Diagnosis.from(new RuntimeException(timeout)).orElseThrow());
    }

    @Test
    void emptyWhenNoneCarriesIt() {
        RuntimeException e = new RuntimeException("x", new IllegalStateException());
        e.addSuppressed(new IllegalArgumentException());
        assertTrue(Diagnosis.from(e).isEmpty());
    }
}
