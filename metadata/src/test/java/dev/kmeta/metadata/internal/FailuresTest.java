package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataTimeoutException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** kmeta's internals build diagnoses and exceptions through {@link Failures}; nobody replaces its factory. */
class FailuresTest {
    @Test
    void theFactoryBuildsAndCannotBeReplaced() {
        Failures.Factory f = Failures.make();
        Diagnosis d = f.diagnosis(Diagnosis.Cause.TOPIC_NOT_FOUND, "t", -1, 1_000, "seen", "fix", List.of("e"), -1,
                "c1", null);
        MetadataTimeoutException e = f.timeout("m", d);
        assertSame(d, e.diagnosis());
        assertEquals(d.message(), MetadataTimeoutException.of(d).getMessage());
        assertThrows(IllegalStateException.class, () -> Failures.install(f));
    }
}
