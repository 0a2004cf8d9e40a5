package dev.kmeta.streams;

import dev.kmeta.testkit.ApiDumpFile;
import dev.kmeta.testkit.ApiSurface;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The reviewed public surface: kmeta.streams' exported API equals {@code api/streams.api} ({@link ApiDumpFile}) and
 * names its units by kmeta's one rule. Regenerate with {@link ApiDumpFile#REGENERATE}.
 */
class ApiDumpTest {
    @Test
    void streams() {
        ApiSurface api = ApiSurface.of(KmetaClientSupplier.class);
        ApiDumpFile.check(api, Path.of("api/streams.api"));
        assertEquals(List.of(), api.unitNameViolations(), "units in names");
    }
}
