package dev.kmeta.producer;

import dev.kmeta.testkit.ApiDumpFile;
import dev.kmeta.testkit.ApiSurface;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The reviewed public surface: kmeta.producer's exported API equals {@code api/kafka-producer.api}
 * ({@link ApiDumpFile}) and names its units by kmeta's one rule. Regenerate with {@link ApiDumpFile#REGENERATE}.
 */
class ApiDumpTest {
    @Test
    void kafkaProducer() {
        ApiSurface api = ApiSurface.of(KmetaProducer.class);
        ApiDumpFile.check(api, Path.of("api/kafka-producer.api"));
        assertEquals(List.of(), api.unitNameViolations(), "units in names");
    }
}
