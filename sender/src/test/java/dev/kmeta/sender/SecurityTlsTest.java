package dev.kmeta.sender;

import dev.kmeta.testkit.LogCapture;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataFatalException;
import dev.kmeta.testkit.ClientSecurity;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.TestCertificates;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.sender.SecurityTest.chain;
import static dev.kmeta.sender.SecurityTest.everyWaiterFailsAtOnce;
import static dev.kmeta.sender.SecurityTest.props;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.time.Duration;

/**
 * kmeta over TLS without SASL, against three real single-broker clusters started side by side, whose CLIENT
 * listeners use certificates made at runtime by {@link TestCertificates#createWithClientCertificates} (no key is
 * committed): one-way TLS; mutual TLS ({@code ssl.client.auth=required}): a client with a certificate signed by the
 * CA gets metadata, one without a key store, with a certificate from an unrelated CA or with an expired certificate
 * fails; and a broker serving an expired certificate. Every failure reaches every waiter at once with a diagnosis
 * naming it and no reconnect storm ({@link SecurityTest#everyWaiterFailsAtOnce}); no store password shows in logs,
 * exceptions or {@code toString()}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SecurityTlsTest {
    private static final String TOPIC = "tls-orders";

    private static TestCertificates certs;
    private static KafkaCluster oneWay;
    private static KafkaCluster mutual;
    private static KafkaCluster expired;

    @BeforeAll
    static void start() {
        certs = TestCertificates.createWithClientCertificates(Path.of("target"));
        CompletableFuture<KafkaCluster> a = startAsync(ClientSecurity.ssl(certs));
        CompletableFuture<KafkaCluster> b = startAsync(ClientSecurity.ssl(certs).requireClientCertificates());
        CompletableFuture<KafkaCluster> c = startAsync(ClientSecurity.ssl(certs).withExpiredBrokerCertificate());
        try {
            CompletableFuture.allOf(a, b, c).join();
        } finally {
            oneWay = a.getNow(null);
            mutual = b.getNow(null);
            expired = c.getNow(null);
        }
    }

    /** Starts a one-broker cluster with this CLIENT listener and topic {@value #TOPIC} (2 partitions). */
    private static CompletableFuture<KafkaCluster> startAsync(ClientSecurity security) {
        return ItSupport.onNewThread("start " + security, () -> {
            KafkaCluster kafka = KafkaCluster.builder().clientSecurity(security).build().start();
            kafka.createTopic(TOPIC, 2, 1);
            return kafka;
        });
    }

    @AfterAll
    static void stop() {
        for (KafkaCluster kafka : new KafkaCluster[] {oneWay, mutual, expired}) {
            if (kafka != null) {
                kafka.close();
            }
        }
        if (certs != null) {
            certs.close();
        }
    }

    /** The client properties of {@code kafka}'s listener with the client key store replaced (null: none). */
    private static Map<String, Object> withKeystore(KafkaCluster kafka, Path keystore) {
        Map<String, Object> p = new HashMap<>(kafka.clientSecurity().clientProperties());
        p.keySet().removeIf(k -> k.startsWith("ssl.keystore.") || k.equals("ssl.key.password"));
        if (keystore != null) {
            p.putAll(certs.keystoreClientProperties(keystore));
        }
        return p;
    }

    private static void assertFetches(KafkaCluster kafka, Map<String, Object> security) throws Exception {
        try (KafkaMetadata m = KafkaMetadata.create(props(kafka.bootstrapServers(), security))) {
            Deadline deadline = m.newDeadline(Duration.ofSeconds(30));
            Cluster c = m.awaitTopic(TOPIC, deadline);
            assertEquals(2, c.partitionCount(TOPIC));
            for (int p = 0; p < 2; p++) {
                assertEquals(kafka.leader(TOPIC, p), c.leader(TOPIC, p).id());
                assertEquals(kafka.brokerAddress(0).getPort(), c.leader(TOPIC, p).port(), "the TLS CLIENT listener");
            }
            assertEquals(kafka.clusterId(), c.clusterId());
            assertEquals(null, m.evidence().get("-1").lastProblem(), m.evidence().get("-1").toString());
        }
    }

    @Test
    void oneWayTlsFetchesMetadata() throws Exception {
        Map<String, Object> security = oneWay.clientSecurity().clientProperties();
        assertEquals("SSL", security.get("security.protocol"));
        assertTrue(security.keySet().stream().noneMatch(k -> k.startsWith("ssl.keystore")), security.keySet()
                .toString());
        assertFetches(oneWay, security);
    }

    @Test
    void mutualTlsWithAClientCertificateFetchesMetadata() throws Exception {
        Map<String, Object> security = mutual.clientSecurity().clientProperties();
        assertEquals(certs.clientKeystore().toString(), security.get("ssl.keystore.location"));
        assertFetches(mutual, security);
    }

    @Test
    void mutualTlsWithoutAClientCertificateFailsEveryWaiterAtOnce() throws Exception {
        Map<String, Object> security = withKeystore(mutual, null);
        SecurityTest.Failure f = everyWaiterFailsAtOnce(mutual.brokerAddress(0), TOPIC,
                proxy -> KafkaMetadata.create(props(proxy.address(), security)),
                ConnectionEvidence.Problem.TLS_HANDSHAKE, "Received fatal alert: ");
        f.causes().forEach(c -> assertInstanceOf(SslAuthenticationException.class, c, chain(c)));
    }

    @Test
    void mutualTlsWithAClientCertificateFromAnUntrustedCaFailsEveryWaiterAtOnce() throws Exception {
        Map<String, Object> security = withKeystore(mutual, certs.untrustedClientKeystore());
        SecurityTest.Failure f = everyWaiterFailsAtOnce(mutual.brokerAddress(0), TOPIC,
                proxy -> KafkaMetadata.create(props(proxy.address(), security)),
                ConnectionEvidence.Problem.TLS_HANDSHAKE, "Received fatal alert: ");
        f.causes().forEach(c -> assertInstanceOf(SslAuthenticationException.class, c, chain(c)));
    }

    @Test
    void mutualTlsWithAnExpiredClientCertificateFailsEveryWaiterAtOnce() throws Exception {
        Map<String, Object> security = withKeystore(mutual, certs.expiredClientKeystore());
        SecurityTest.Failure f = everyWaiterFailsAtOnce(mutual.brokerAddress(0), TOPIC,
                proxy -> KafkaMetadata.create(props(proxy.address(), security)),
                ConnectionEvidence.Problem.TLS_HANDSHAKE, "Received fatal alert: ");
        f.causes().forEach(c -> assertInstanceOf(SslAuthenticationException.class, c, chain(c)));
    }

    @Test
    void expiredBrokerCertificateFailsEveryWaiterAtOnce() throws Exception {
        Map<String, Object> security = expired.clientSecurity().clientProperties();
        SecurityTest.Failure f = everyWaiterFailsAtOnce(expired.brokerAddress(0), TOPIC,
                proxy -> KafkaMetadata.create(props(proxy.address(), security)),
                ConnectionEvidence.Problem.TLS_HANDSHAKE, "CertificateExpiredException: NotAfter: ");
        f.causes().forEach(c -> assertInstanceOf(SslAuthenticationException.class, c, chain(c)));
    }

    @Test
    void noStorePasswordInLogsExceptionsOrToString() throws Exception {
        List<String> texts = new ArrayList<>();
        String captured;
        try (LogCapture logs = LogCapture.at("trace", "dev.kmeta", "org.apache.kafka", "kafka")) {
            try (KafkaMetadata m = KafkaMetadata.create(props(mutual.bootstrapServers(),
                    mutual.clientSecurity().clientProperties()))) {
                assertEquals(2, m.awaitTopic(TOPIC, m.newDeadline(Duration.ofSeconds(30))).partitionCount(TOPIC));
                texts.add(m.config().toString());
                texts.add(m.toString());
                m.evidence().records().forEach(r -> texts.add(r.toString()));
            }
            List<Map<String, Object>> failing = List.of(withKeystore(mutual, null),
                    withKeystore(mutual, certs.expiredClientKeystore()));
            for (Map<String, Object> security : failing) {
                try (KafkaMetadata m = KafkaMetadata.create(props(mutual.bootstrapServers(), security))) {
                    MetadataFatalException e = assertInstanceOf(MetadataFatalException.class, assertThrows(
                            SslAuthenticationException.class, () -> m.awaitTopic(TOPIC, m.newDeadline(Duration.ofSeconds(30)))).getCause());
                    addChain(texts, e);
                    texts.add(String.valueOf(e.diagnosis()));
                    texts.add(m.config().toString());
                    texts.add(String.valueOf(m.evidence().summary()));
                }
            }
            try (KafkaMetadata m = KafkaMetadata.create(props(expired.bootstrapServers(),
                    expired.clientSecurity().clientProperties()))) {
                addChain(texts, assertThrows(SslAuthenticationException.class,
                        () -> m.awaitTopic(TOPIC, m.newDeadline(Duration.ofSeconds(30)))));
            }
            // A key store whose password is wrong: kafka-clients refuses it when the client is made.
            Map<String, Object> wrongStorePassword = withKeystore(mutual, certs.clientKeystore());
            wrongStorePassword.put("ssl.keystore.password", "not-" + certs.password());
            RuntimeException e = assertThrows(RuntimeException.class,
                    () -> KafkaMetadata.create(props(mutual.bootstrapServers(), wrongStorePassword)).close());
            addChain(texts, e);
            captured = logs.text();
        }
        Files.writeString(Path.of("target", "SecurityTlsTest-captured-logs.txt"), captured);
        assertTrue(captured.contains("kmeta metadata starting"), "the capture works: " + captured.length() + " chars");
        assertTrue(captured.contains("ssl.keystore.password=[hidden]"), "the config line is there, passwords hidden");
        ItSupport.report("checked %d lines of logs (%d chars) and %d strings for the store password",
                captured.lines().count(), captured.length(), texts.size());
        SecurityTest.assertNoSecret(certs.password(), "logs", captured);
        for (String text : texts) {
            SecurityTest.assertNoSecret(certs.password(), "a string", text);
        }
    }

    private static void addChain(List<String> texts, Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            texts.add(t.toString());
        }
    }
}
