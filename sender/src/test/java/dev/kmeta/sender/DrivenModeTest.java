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

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.time.Duration;

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
        try (DrivenKafkaMetadata metadata = KafkaMetadata.driven(props); ProducerLoop loop = new ProducerLoop(metadata)) {
            assertThrows(IllegalStateException.class, () -> metadata.attach(loop.client), "attach once");
            Cluster c = metadata.awaitTopic("driven", 2, metadata.newDeadline(Duration.ofSeconds(30)));
            assertEquals(3, c.partitionCount("driven"));
            assertEquals(cluster.leader("driven", 2), c.leader("driven", 2).id());
            assertFalse(Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> t.getName().startsWith("kmeta-metadata-sender")), "no thread of kmeta's");
            assertTrue(metadata.stats().requestsSent() >= 1);
        }
    }

    @Test
    void aDrivenInstanceResolvesBrokerNamesThroughTheHookItWasBuiltWith() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("driven-dns", 2, 1);
        int port = cluster.brokerAddress(cluster.brokerIds().get(0)).getPort();
        List<String> asked = new CopyOnWriteArrayList<>();
        HostResolverHook hook = host -> {
            asked.add(host);
            if (host.equals("kafka.driven.test")) {
                return new InetAddress[] {InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1})};
            }
            if (host.endsWith(".test")) {
                throw new UnknownHostException(host);
            }
            return InetAddress.getAllByName(host);
        };
        Map<String, Object> props = Map.of("bootstrap.servers", "kafka.driven.test:" + port,
                "client.id", "driven-dns");
        try (DrivenKafkaMetadata metadata = KafkaMetadata.builder(props).hostResolver(hook).buildDriven();
             ProducerLoop loop = new ProducerLoop(metadata)) {
            Cluster c = metadata.awaitTopic("driven-dns", 1, metadata.newDeadline(Duration.ofSeconds(30)));

            assertEquals(2, c.partitionCount("driven-dns"));
            assertTrue(asked.contains("kafka.driven.test"), "the bootstrap name went through the hook: " + asked);
            assertTrue(metadata.evidence().get("-1").answers() >= 1, "the bootstrap address answered: "
                    + metadata.evidence());
            assertFalse(Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> t.getName().startsWith("kmeta-metadata-sender")), "no thread of kmeta's");
        }
    }

    /**
     * A producer's network client built as docs/embedding.md shows (kmeta's updater and resolver; bootstrap names left
     * to kmeta), attached, and its poll loop on a thread of its own until closed.
     */
    private static final class ProducerLoop implements AutoCloseable {
        final NetworkClient client;
        private final Metrics metrics = new Metrics();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;

        ProducerLoop(DrivenKafkaMetadata metadata) {
            Map<String, Object> network = new HashMap<>(metadata.config().originals());
            network.put("bootstrap.resolve.timeout.ms", 0); // kmeta resolves bootstrap names itself
            client = ClientUtils.createNetworkClient(new AdminClientConfig(network),
                    metadata.config().bootstrapServers(), metadata.config().clientId(), metrics, "producer",
                    new LogContext(), new ApiVersions(), Time.SYSTEM, 5, 30_000, null, metadata.metadataUpdater(),
                    metadata.hostResolver(), null, null);
            metadata.attach(client);
            thread = new Thread(() -> {
                while (running.get()) {
                    client.poll(1_000, Time.SYSTEM.milliseconds());
                }
            }, "producer-network-thread");
            thread.start();
        }

        @Override
        public void close() throws Exception {
            running.set(false);
            client.wakeup();
            thread.join(10_000);
            client.close();
            metrics.close();
        }
    }

    @Test
    void anInstanceWithItsOwnThreadHasNoUpdaterToGive() {
        Map<String, Object> props = Map.of("bootstrap.servers", KAFKA.cluster().bootstrapServers());
        try (KafkaMetadata own = KafkaMetadata.create(props)) {
            // was a run-time IllegalStateException; now own.metadataUpdater() does not compile
            assertFalse(own instanceof DrivenKafkaMetadata, "a threaded instance is no driven one");
            for (String driven : List.of("metadataUpdater", "hostResolver", "attach")) {
                assertTrue(Arrays.stream(KafkaMetadata.class.getMethods()).noneMatch(m -> m.getName().equals(driven)),
                        "KafkaMetadata has no " + driven + "()");
            }
        }
    }
}
