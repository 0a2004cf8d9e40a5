package dev.kmeta.spring;

import dev.kmeta.testkit.ApiDumpFile;
import dev.kmeta.testkit.ApiSurface;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The reviewed public surface: kmeta-spring's public API (it has no module descriptor: every non-internal
 * {@code dev.kmeta} package) equals {@code api/spring.api} ({@link ApiDumpFile}) and names its units by kmeta's one
 * rule. Regenerate with {@link ApiDumpFile#REGENERATE}.
 */
class ApiDumpTest {
    @Test
    void spring() {
        ApiSurface api = ApiSurface.of(KmetaAutoConfiguration.class);
        ApiDumpFile.check(api, Path.of("api/spring.api"));
        assertEquals(List.of(), api.unitNameViolations(), "units in names");
    }
}
