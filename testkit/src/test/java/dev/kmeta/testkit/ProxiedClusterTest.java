package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A broker that advertises a FaultProxy: clients reach it only through the proxy, which counts and breaks. */
class ProxiedClusterTest {

    private static final short METADATA = ApiKeys.METADATA.id;
    private static final short API_VERSIONS = ApiKeys.API_VERSIONS.id;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().withProxies());

    private FaultProxy proxy;

    @BeforeEach
    void healthyProxy() {
        proxy = KAFKA.cluster().proxy(0).pass().latencyMs(0).resetAll();
        proxy.resetCounters();
    }

    @Test
    void theBrokerAdvertisesItsProxy() throws Exception {
        KafkaCluster kafka = KAFKA.cluster();
        try (Admin direct = Clients.admin(kafka.bootstrapServers())) {
            Collection<Node> nodes = direct.describeCluster().nodes().get(10, TimeUnit.SECONDS);
            assertEquals(1, nodes.size());
            assertEquals(proxy.port(), nodes.iterator().next().port());
        }
        assertEquals(proxy.address(), kafka.proxiedBootstrapServers());
        assertEquals(kafka.brokerAddress(0).getPort(), proxy.target().getPort());
    }

    @Test
    void metadataRequestsAreCountedExactly() throws Exception {
        InetSocketAddress viaProxy = new InetSocketAddress("127.0.0.1", proxy.port());
        for (int i = 0; i < 3; i++) {
            MetadataProbe.ask(viaProxy, List.of());
        }
        assertEquals(3, proxy.requestCount(METADATA));
        assertEquals(3, proxy.acceptedConnections());
    }

    @Test
    void realClientsMetadataGoesThroughTheProxy() throws Exception {
        KAFKA.cluster().createTopic("proxied", 2, 1);
        proxy.resetCounters();
        try (KafkaProducer<String, String> producer = Clients.producer(KAFKA.cluster().proxiedBootstrapServers(),
                10_000)) {
            assertEquals(2, producer.partitionsFor("proxied").size());
            producer.send(new ProducerRecord<>("proxied", "k", "v")).get(10, TimeUnit.SECONDS);
        }
        assertTrue(proxy.requestCount(METADATA) >= 1, "metadata requests: " + proxy.requestCounts());
        assertTrue(proxy.requestCount(API_VERSIONS) >= 1, "api versions: " + proxy.requestCounts());
        assertEquals(1, proxy.requestCount(ApiKeys.PRODUCE.id));

        proxy.resetCounters();
        try (Admin admin = Clients.admin(KAFKA.cluster().proxiedBootstrapServers())) {
            admin.describeTopics(List.of("proxied")).allTopicNames().get(10, TimeUnit.SECONDS);
        }
        assertTrue(proxy.requestCount(METADATA) >= 1, "admin requests: " + proxy.requestCounts());
    }

    @Test
    void aBlackholedOrRefusingBrokerTimesClientsOutUntilItPassesAgain() throws Exception {
        KAFKA.cluster().createTopic("dark", 1, 1);
        String bootstrap = KAFKA.cluster().proxiedBootstrapServers();
        proxy.blackhole();
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap, 1_000, 1_000, 1_500)) {
            assertThrows(TimeoutException.class, () -> producer.partitionsFor("dark"));
        }
        assertTrue(proxy.requestCount(API_VERSIONS) >= 1, "the client did talk: " + proxy.requestCounts());
        proxy.refuse();
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap, 1_000, 1_000, 1_500)) {
            assertThrows(TimeoutException.class, () -> producer.partitionsFor("dark"));
        }
        proxy.pass();
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap, 10_000)) {
            assertEquals(1, producer.partitionsFor("dark").size());
        }
    }

    @Test
    void aBrokerAdvertisingAClosedPortIsUnreachableAfterBootstrap() throws Exception {
        int closedPort = FreePorts.next();
        try (KafkaCluster misconfigured = KafkaCluster.builder().advertisedPort(0, closedPort).build().start()) {
            misconfigured.createTopic("nowhere", 1, 1);
            try (KafkaProducer<String, String> producer =
                         Clients.producer(misconfigured.bootstrapServers(), 5_000, 1_000, 1_500)) {
                List<PartitionInfo> partitions = producer.partitionsFor("nowhere");
                assertEquals(closedPort, partitions.get(0).leader().port(), "the bootstrap connection answers");
                Future<RecordMetadata> send = producer.send(new ProducerRecord<>("nowhere", "k", "v"));
                ExecutionException failed = assertThrows(ExecutionException.class,
                        () -> send.get(10, TimeUnit.SECONDS));
                assertInstanceOf(TimeoutException.class, failed.getCause());
            }
        }
    }
}
