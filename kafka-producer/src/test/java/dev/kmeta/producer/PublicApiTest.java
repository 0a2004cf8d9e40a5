package dev.kmeta.producer;

import dev.kmeta.testkit.ApiSurface;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The API kmeta.producer's descriptor promises: its public signatures name no internal type and no kafka-clients
 * internal ({@link ApiSurface}). Runs in {@code verify}; a leak fails the build.
 */
class PublicApiTest {
    @Test
    void kafkaProducer() {
        ApiSurface api = ApiSurface.of(KmetaProducer.class);
        assertEquals("kmeta.producer", api.moduleName());
        assertEquals(Set.of("dev.kmeta.producer"), api.exportedPackages());
        assertEquals(Set.of(), Set.copyOf(api.leaks()), "leaks");
    }
}
