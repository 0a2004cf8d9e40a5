package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A cluster whose CLIENT listener is SASL_SSL (SCRAM and PLAIN), with certificates made at runtime. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SecureClusterTest {
    private static final String PLAIN_USER = "plain-user";
    private static final String PLAIN_PASSWORD = "plain-" + System.nanoTime();

    private static TestCertificates certs;
    private static KafkaCluster kafka;

    @BeforeAll
    static void start() {
        certs = TestCertificates.create(Path.of("target"));
        kafka = KafkaCluster.builder()
                .clientSecurity(ClientSecurity.saslSsl(certs).withPlainUser(PLAIN_USER, PLAIN_PASSWORD))
                .build().start();
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
        if (certs != null) {
            certs.close();
        }
    }

    @Test
    void certificatesChainToTheCaAndNameTheLoopback() throws Exception {
        char[] pw = certs.password().toCharArray();
        KeyStore broker = KeyStore.getInstance(TestCertificates.STORE_TYPE);
        try (var in = Files.newInputStream(certs.brokerKeystore())) {
            broker.load(in, pw);
        }
        String alias = Collections.list(broker.aliases()).get(0);
        assertTrue(broker.isKeyEntry(alias));
        Certificate[] chain = broker.getCertificateChain(alias);
        assertEquals(2, chain.length);
        X509Certificate leaf = (X509Certificate) chain[0];
        leaf.verify(certs.caCertificate().getPublicKey());
        leaf.checkValidity();
        List<String> names = leaf.getSubjectAlternativeNames().stream().map(n -> String.valueOf(n.get(1))).toList();
        assertTrue(names.containsAll(TestCertificates.BROKER_NAMES), names.toString());
        assertEquals(-1, leaf.getBasicConstraints(), "the broker certificate is no CA");
        assertTrue(certs.caCertificate().getBasicConstraints() >= 0, "the CA certificate is a CA");

        KeyStore untrusted = KeyStore.getInstance(TestCertificates.STORE_TYPE);
        try (var in = Files.newInputStream(certs.untrustedTruststore())) {
            untrusted.load(in, pw);
        }
        assertEquals(1, untrusted.size());
        assertFalse(untrusted.getCertificateAlias(certs.caCertificate()) != null, "the untrusted store lacks the CA");
        assertTrue(certs.directory().startsWith(Path.of("target").toAbsolutePath()));
    }

    @Test
    void scramUserReachesTheClientListenerAndAWrongPasswordDoesNot() throws Exception {
        kafka.createScramUser("alice", "alice-secret");
        Map<String, Object> props = kafka.clientProperties("alice", "alice-secret");
        assertEquals("SASL_SSL", props.get("security.protocol"));
        assertEquals("SCRAM-SHA-512", props.get("sasl.mechanism"));
        try (Admin admin = admin(props)) {
            assertEquals(kafka.clusterId(), admin.describeCluster().clusterId().get(10, TimeUnit.SECONDS));
        }
        try (LogCapture log = LogCapture.at("error", "org.apache.kafka.clients.NetworkClient");
             Admin admin = admin(kafka.clientProperties("alice", "not-her-password"))) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> admin.describeCluster().clusterId().get(10, TimeUnit.SECONDS));
            assertInstanceOf(SaslAuthenticationException.class, e.getCause());
            // expected: the admin client's ERROR line, captured, not in the build log
            assertTrue(log.text().contains("failed authentication due to: Authentication failed during "
                    + "authentication due to invalid credentials"), log.text());
        }
    }

    @Test
    void scramSha256AndPlainUsersLogIn() {
        kafka.createScramUser(ClientSecurity.SCRAM_SHA_256, "bob", "bob-secret");
        LoginProbe.Outcome plain = LoginProbe.login(kafka.brokerAddress(0),
                kafka.clientSecurity().clientProperties(ClientSecurity.PLAIN, PLAIN_USER, PLAIN_PASSWORD),
                Duration.ofSeconds(10));
        assertTrue(plain.ready(), plain.toString());
        assertEquals(List.of("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN"), kafka.clientSecurity().mechanisms());
    }

    @Test
    void aClientTrustingAnotherCaFailsTheHandshake() {
        Map<String, Object> props = new HashMap<>(kafka.clientSecurity()
                .clientProperties(ClientSecurity.SCRAM_SHA_512, "alice", "alice-secret"));
        props.putAll(certs.untrustingClientProperties());
        LoginProbe.Outcome outcome = LoginProbe.login(kafka.brokerAddress(0), props, Duration.ofSeconds(10));
        assertFalse(outcome.ready());
        assertInstanceOf(SslAuthenticationException.class, outcome.authFailure(), outcome.toString());
    }

    @Test
    void theInternalListenerStaysPlaintext() throws Exception {
        kafka.createTopic("secured", 2, 1);
        assertEquals(2, kafka.admin().describeTopics(List.of("secured")).allTopicNames().get().get("secured")
                .partitions().size());
        assertThrows(IllegalStateException.class, () -> kafka.clientProperties(),
                "SASL needs a user");
        assertNotNull(kafka.clientSecurity().certificates());
        assertFalse(kafka.clientSecurity().toString().contains(PLAIN_PASSWORD));
    }

    @Test
    void otherProtocolsSayWhatTheyNeed() {
        ClientSecurity ssl = ClientSecurity.ssl(certs);
        assertEquals("SSL", ssl.clientProperties().get("security.protocol"));
        assertEquals(certs.truststore().toString(), ssl.clientProperties().get("ssl.truststore.location"));
        assertEquals(List.of(), ssl.mechanisms());
        assertTrue(ssl.brokerConfigs().containsKey("listener.name.client.ssl.keystore.location"));
        assertFalse(ssl.brokerConfigs().keySet().stream().anyMatch(k -> k.contains("sasl")));
        assertThrows(IllegalStateException.class, () -> ssl.withPlainUser("u", "p"));

        ClientSecurity sasl = ClientSecurity.saslPlaintext();
        Map<String, Object> props = sasl.clientProperties(ClientSecurity.SCRAM_SHA_256, "u", "p");
        assertEquals("SASL_PLAINTEXT", props.get("security.protocol"));
        assertFalse(props.containsKey("ssl.truststore.location"));
        assertFalse(sasl.brokerConfigs().keySet().stream().anyMatch(k -> k.contains("ssl.")));
        assertThrows(IllegalArgumentException.class, () -> sasl.clientProperties(ClientSecurity.PLAIN, "u", "p"),
                "PLAIN is off without PLAIN users");
        assertThrows(IllegalArgumentException.class, () -> sasl.clientProperties(ClientSecurity.SCRAM_SHA_512,
                "u", "has\"quote"));
        assertThrows(IllegalStateException.class, () -> KafkaCluster.builder().clientSecurityProtocol("SSL").build()
                .clientSecurity(), "configured by hand: the testkit cannot say");
    }

    private static Admin admin(Map<String, Object> props) {
        Map<String, Object> p = new HashMap<>(props);
        p.put("request.timeout.ms", 5_000);
        p.put("default.api.timeout.ms", 10_000);
        p.put("reconnect.backoff.max.ms", 200);
        return Admin.create(p);
    }
}
