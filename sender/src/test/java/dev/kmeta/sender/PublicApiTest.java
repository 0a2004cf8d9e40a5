package dev.kmeta.sender;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.testkit.ApiSurface;
import org.apache.kafka.clients.HostResolver;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.clients.MetadataUpdater;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The API the module descriptors promise: the public signatures of kmeta.cluster, kmeta.metadata and kmeta.sender
 * name no internal type and no kafka-clients internal ({@link ApiSurface}); only {@link DrivenKafkaMetadata} names
 * kafka-clients' network types, on purpose. Runs in {@code verify}; a leak fails the build.
 */
class PublicApiTest {
    @Test
    void clusterModel() {
        ApiSurface api = ApiSurface.of(Cluster.class);
        assertEquals("kmeta.cluster", api.moduleName());
        assertEquals(Set.of("dev.kmeta.cluster"), api.exportedPackages());
        assertEquals(Set.of(), Set.copyOf(api.leaks()), "leaks");
    }

    @Test
    void metadata() {
        ApiSurface api = ApiSurface.of(Deadline.class);
        assertEquals("kmeta.metadata", api.moduleName());
        assertEquals(Set.of("dev.kmeta.metadata"), api.exportedPackages());
        assertEquals(Set.of(), Set.copyOf(api.leaks()), "leaks");
    }

    @Test
    void sender() {
        ApiSurface api = ApiSurface.of(KafkaMetadata.class)
                .allowing(DrivenKafkaMetadata.class, MetadataUpdater.class, HostResolver.class, KafkaClient.class);
        assertEquals("kmeta.sender", api.moduleName());
        assertEquals(Set.of("dev.kmeta.sender"), api.exportedPackages());
        assertEquals(Set.of(), Set.copyOf(api.leaks()), "leaks");
    }
}
