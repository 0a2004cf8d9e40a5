package dev.kmeta.micrometer;

import dev.kmeta.testkit.ApiSurface;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The API kmeta.micrometer's descriptor promises: one package, no internal type in a public signature; Micrometer's
 * types appear only where the binder meets Micrometer ({@link ApiSurface}).
 */
class PublicApiTest {
    @Test
    void micrometer() {
        ApiSurface api = ApiSurface.of(KmetaMetrics.class)
                .allowing(KmetaMetrics.class, MeterBinder.class, MeterRegistry.class, Tag.class)
                .allowing(KmetaRouteMetrics.class, MeterBinder.class, MeterRegistry.class, Tag.class);
        assertEquals("kmeta.micrometer", api.moduleName());
        assertEquals(Set.of("dev.kmeta.micrometer"), api.exportedPackages());
        assertEquals(Set.of(), Set.copyOf(api.leaks()), "leaks");
    }
}
