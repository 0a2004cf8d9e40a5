package dev.kmeta.streams;

import dev.kmeta.testkit.ApiSurface;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The API kmeta.streams' descriptor promises: one package, one final class; Kafka's types appear only where the
 * supplier meets Kafka Streams ({@link ApiSurface}).
 */
class PublicApiTest {
    @Test
    void streams() {
        ApiSurface api = ApiSurface.of(KmetaClientSupplier.class).allowing(KmetaClientSupplier.class,
                KafkaClientSupplier.class, Admin.class, Producer.class, Consumer.class);
        assertEquals("kmeta.streams", api.moduleName());
        assertEquals(Set.of("dev.kmeta.streams"), api.exportedPackages());
        assertEquals(Set.of(), Set.copyOf(api.leaks()), "leaks");
    }
}
