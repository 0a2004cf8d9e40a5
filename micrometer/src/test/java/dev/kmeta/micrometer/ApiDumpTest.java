package dev.kmeta.micrometer;

import dev.kmeta.testkit.ApiDumpFile;
import dev.kmeta.testkit.ApiSurface;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;


/**
 * The reviewed public surface: kmeta.micrometer's exported API equals {@code api/micrometer.api}
 * ({@link ApiDumpFile}). Regenerate with {@link ApiDumpFile#REGENERATE}.
 */
class ApiDumpTest {
    @Test
    void micrometer() {
        ApiSurface api = ApiSurface.of(KmetaMetrics.class);
        ApiDumpFile.check(api, Path.of("api/micrometer.api"));
    }
}
