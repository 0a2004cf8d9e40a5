package dev.kmeta.sender;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rebootstrap: when every broker learned from metadata is unreachable for
 * {@code metadata.recovery.rebootstrap.trigger.ms}, the sender goes back to {@code bootstrap.servers}, resolving the
 * bootstrap name through DNS again, and gets metadata from there.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RebootstrapTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(1)
            .withProxies());

    @Test
    void learnedBrokersUnreachableSendsTheSenderBackToTheBootstrapNameResolvedAgain() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("reboot", 2, 1);
        int brokerId = cluster.brokerIds().get(0);
        int directPort = cluster.brokerAddress(brokerId).getPort();
        AtomicInteger bootResolutions = new AtomicInteger();
        HostResolverHook dns = host -> {
            if (host.equals("kafka.boot.test")) {
                bootResolutions.incrementAndGet();
                return new InetAddress[] {InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1})};
            }
            if (host.endsWith(".test")) {
                throw new UnknownHostException(host);
            }
            return InetAddress.getAllByName(host);
        };
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", "kafka.boot.test:" + directPort); // the broker advertises its proxy instead
        props.put("client.id", "reboot");
        props.put("metadata.recovery.rebootstrap.trigger.ms", 1_500);
        props.put("request.timeout.ms", 1_000);
        props.put("socket.connection.setup.timeout.ms", 500);
        props.put("socket.connection.setup.timeout.max.ms", 500);
        props.put("reconnect.backoff.ms", 50);
        props.put("reconnect.backoff.max.ms", 200);
        try (KafkaMetadata m = KafkaMetadata.builder(props).hostResolver(dns).build()) {
            assertEquals(2, m.awaitTopic("reboot", m.newDeadline(Duration.ofSeconds(30))).partitionCount("reboot"));
            assertEquals(cluster.proxy(brokerId).port(), m.fetch().node(brokerId).port(), "learned: the proxy");
            int resolutionsBefore = bootResolutions.get();
            // The first answer always comes from the bootstrap address, and the sender records an answer before it
            // publishes the snapshot it brings: read after awaitTopic, this count already holds it. (It once did not -
            // the evidence was written after the snapshot - and a late "-1" answer then ended the wait below at once.)
            int bootstrapAnswersBefore = m.evidence().get("-1").answers();
            assertTrue(bootstrapAnswersBefore >= 1, "the bootstrap's first answer is in the evidence");
            cluster.proxy(brokerId).blackhole();
            cluster.proxy(brokerId).resetAll();
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    m.requestUpdate();
                    return m.evidence().get("-1").answers() > bootstrapAnswersBefore;
                });
                assertTrue(m.stats().rebootstraps() >= 1, "rebootstraps: " + m.stats().rebootstraps());
                assertTrue(bootResolutions.get() > resolutionsBefore, "the bootstrap name was resolved again");
            } finally {
                cluster.proxy(brokerId).pass();
            }
            // back on the learned broker once its address works again
            var viaBootstrap = m.evidence().get("-1").answers();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                m.awaitUpdate(m.requestUpdate(), m.newDeadline(Duration.ofSeconds(5)));
                var learned = m.evidence().get(String.valueOf(brokerId));
                return learned != null && learned.answers() > 0;
            });
            assertTrue(m.evidence().get("-1").answers() <= viaBootstrap + 1,
                    "after the first answer the learned broker serves again");
        }
    }
}
