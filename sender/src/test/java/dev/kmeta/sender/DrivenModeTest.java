package dev.kmeta.sender;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Driven mode: kmeta as the metadata source of a producer's own NetworkClient, doing its work inside the
 * producer's poll loop, with no thread of its own.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DrivenModeTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(1);

    @Test
    void aProducersOwnNetworkLoopDrivesKmeta() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("driven", 3, 1);
        Map<String, Object> props = Map.of("bootstrap.servers", cluster.bootstrapServers(), "client.id", "driven");
        try (KafkaMetadata metadata = KafkaMetadata.driven(props); Metrics metrics = new Metrics()) {
            NetworkClient client = ClientUtils.createNetworkClient(new AdminClientConfig(props),
                    List.of(cluster.bootstrapServers()), "driven", metrics, "producer", new LogContext(),
                    new ApiVersions(), Time.SYSTEM, 5, 30_000, null, metadata.metadataUpdater(),
                    metadata.hostResolver(), null, null);
            metadata.attach(client);
            assertThrows(IllegalStateException.class, () -> metadata.attach(client), "attach once");
            AtomicBoolean running = new AtomicBoolean(true);
            Thread producerLoop = new Thread(() -> {
                while (running.get()) {
                    client.poll(1_000, Time.SYSTEM.milliseconds());
                }
            }, "producer-network-thread");
            producerLoop.start();
            try {
                Cluster c = metadata.awaitTopic("driven", 2, Deadline.after(30_000));
                assertEquals(3, c.partitionCount("driven"));
                assertEquals(cluster.leader("driven", 2), c.leader("driven", 2).id());
                assertFalse(Thread.getAllStackTraces().keySet().stream()
                        .anyMatch(t -> t.getName().startsWith("kmeta-metadata-sender")), "no thread of kmeta's");
                assertTrue(metadata.counters().requestsSent() >= 1);
            } finally {
                running.set(false);
                client.wakeup();
                producerLoop.join(10_000);
                client.close();
            }
        }
    }

    @Test
    void anInstanceWithItsOwnThreadHasNoUpdaterToGive() {
        Map<String, Object> props = Map.of("bootstrap.servers", KAFKA.cluster().bootstrapServers());
        try (KafkaMetadata own = KafkaMetadata.create(props)) {
            assertThrows(IllegalStateException.class, own::metadataUpdater);
        }
    }
}
