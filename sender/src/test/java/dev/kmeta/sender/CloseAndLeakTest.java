package dev.kmeta.sender;

import org.apache.kafka.common.KafkaException;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.sender.ItSupport.fastProps;
import static dev.kmeta.sender.ItSupport.kmetaThreads;
import static dev.kmeta.sender.ItSupport.millisSince;
import static dev.kmeta.sender.ItSupport.onNewThread;
import static dev.kmeta.sender.ItSupport.report;
import static dev.kmeta.sender.ItSupport.senderThreadAlive;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a closed client leaves behind: no thread, no socket (counted at the FaultProxy in front of the broker), no
 * waiter - also when it is closed with a request on the wire that will never be answered.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CloseAndLeakTest {
    private static final short METADATA = 3;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().withProxies());

    private FaultProxy proxy;
    private int connectionsBefore;

    @BeforeAll
    static void topic() {
        KAFKA.cluster().createTopic("leak", 2, 1);
    }

    @BeforeEach
    void quietProxy() {
        proxy = KAFKA.cluster().proxy(0).pass().latencyMs(0);
        await().atMost(Duration.ofSeconds(10)).until(() -> proxy.openConnections() == 0);
        connectionsBefore = proxy.openConnections();
        assertEquals(List.of(), kmetaThreads(), "a previous test leaked");
    }

    private static Map<String, Object> props() {
        return fastProps(KAFKA.cluster().proxiedBootstrapServers());
    }

    private void assertNothingLeft(KafkaMetadata m) {
        assertFalse(senderThreadAlive(m.config().clientId()), "close() returns once the sender thread ended");
        assertEquals(List.of(), kmetaThreads());
        assertEquals(RefreshState.CLOSED, m.state());
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertEquals(connectionsBefore,
                proxy.openConnections(), "the client's sockets are closed"));
    }

    @Test
    void closeLeavesNoThreadAndNoSocket() {
        KafkaMetadata m = KafkaMetadata.create(props());
        try {
            assertEquals(2, m.awaitTopic("leak", m.newDeadline(Duration.ofSeconds(30))).partitionCount("leak"));
            int v = m.requestUpdate();
            m.awaitUpdate(v, m.newDeadline(Duration.ofSeconds(10)));
            assertTrue(senderThreadAlive(m.config().clientId()));
            assertTrue(proxy.openConnections() > connectionsBefore, "the client is connected through the proxy");
            long start = System.nanoTime();
            m.close();
            report("close of an idle client took %d ms", millisSince(start));
            assertNothingLeft(m);
            m.close(); // idempotent
            assertInstanceOf(MetadataClosedException.class,
                    assertThrows(KafkaException.class, () -> m.awaitTopic("leak", m.newDeadline(Duration.ofSeconds(1)))).getCause());
            assertInstanceOf(MetadataClosedException.class, assertThrows(KafkaException.class, m::requestUpdate).getCause());
        } finally {
            m.close();
        }
    }

    @Test
    void manyClientsOpenedAndClosedLeaveNothing() {
        for (int i = 0; i < 10; i++) {
            try (KafkaMetadata m = KafkaMetadata.create(props())) {
                assertEquals(2, m.awaitTopic("leak", m.newDeadline(Duration.ofSeconds(30))).partitionCount("leak"));
            }
        }
        assertEquals(List.of(), kmetaThreads());
        await().atMost(Duration.ofSeconds(5)).untilAsserted(
                () -> assertEquals(connectionsBefore, proxy.openConnections()));
    }

    @Test
    void closeWithARequestOnTheWireReturnsPromptlyAndReleasesEveryWaiter() throws Exception {
        Map<String, Object> p = props();
        p.put("request.timeout.ms", 60_000); // the request in flight would hang for a minute
        KafkaMetadata m = KafkaMetadata.create(p);
        try {
            m.awaitTopic("leak", m.newDeadline(Duration.ofSeconds(30)));
            // a second request goes to the broker learned from the first answer: that connection is up before the dark
            int v = m.requestUpdate();
            m.awaitUpdate(v, m.newDeadline(Duration.ofSeconds(10)));
            Cluster known = m.fetch();
            proxy.blackhole();
            long metadataBefore = proxy.requestCount(METADATA);
            List<CompletableFuture<?>> waits = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                String topic = "never-" + i;
                waits.add(onNewThread("wait-" + i, () -> m.awaitTopic(topic, m.newDeadline(Duration.ofSeconds(60)))));
            }
            int version = known.version();
            waits.add(onNewThread("update", () -> {
                m.awaitUpdate(version, m.newDeadline(Duration.ofSeconds(60)));
                return null;
            }));
            await().atMost(Duration.ofSeconds(10)).until(() -> m.stats().waitersNow() == 6);
            // the request for the new topics went out and is swallowed by the proxy
            await().atMost(Duration.ofSeconds(10)).until(
                    () -> m.state() == RefreshState.IN_FLIGHT && proxy.requestCount(METADATA) > metadataBefore);

            long start = System.nanoTime();
            m.close();
            long closeMs = millisSince(start);
            for (CompletableFuture<?> w : waits) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> w.get(5, TimeUnit.SECONDS));
                assertInstanceOf(MetadataClosedException.class, e.getCause().getCause());
            }
            long releasedMs = millisSince(start);
            report("close with a request in flight took %d ms; every waiter released within %d ms", closeMs,
                    releasedMs);
            assertTrue(closeMs < 5_000, "close took " + closeMs + " ms");
            assertTrue(releasedMs < 5_000, "waiters released after " + releasedMs + " ms");
            assertEquals(0, m.stats().waitersNow());
        } finally {
            m.close();
        }
        assertNothingLeft(m);
    }
}
