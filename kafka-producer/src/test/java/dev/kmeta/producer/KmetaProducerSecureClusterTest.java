package dev.kmeta.producer;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.testkit.ClientSecurity;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import dev.kmeta.testkit.LogCapture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.testkit.TestClients.millisSince;
import static dev.kmeta.testkit.TestClients.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A SASL_PLAINTEXT CLIENT listener with KRaft's StandardAuthorizer: a kmeta-backed producer with a wrong password,
 * and one whose user may not describe a topic, each get kmeta's diagnosis in Kafka's own exception type (not at the
 * deadline), while the allowed topic is served and no secret shows in the messages.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KmetaProducerSecureClusterTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder()
            .clientSecurity(ClientSecurity.saslPlaintext()).withAuthorizer());

    private static final String USER = "producer-user";
    private static final String PASSWORD = "pw-" + UUID.randomUUID();
    private static final String WRONG_PASSWORD = "wrong-" + UUID.randomUUID();
    private static final long MAX_BLOCK_MS = 5_000;

    @BeforeAll
    static void usersTopicsAndAcls() {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createScramUser(USER, PASSWORD);
        cluster.createTopic("allowed", 1, 1);
        cluster.createTopic("forbidden", 1, 1);
        cluster.allowTopic(USER, "allowed", AclOperation.DESCRIBE, AclOperation.WRITE);
        try (Admin asUser = Admin.create(props(PASSWORD))) {
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> asUser.describeTopics(
                    List.of("allowed")).allTopicNames().get(5, TimeUnit.SECONDS).containsKey("allowed"));
        }
    }

    private static Map<String, Object> props(String password) {
        Map<String, Object> p = new HashMap<>(KAFKA.cluster().clientProperties(USER, password));
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "secure-" + System.nanoTime());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS);
        return p;
    }

    private static Throwable failureOf(Producer<String, String> producer, String topic) {
        long start = System.nanoTime();
        Future<?> f = producer.send(new ProducerRecord<>(topic, "v"));
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(MAX_BLOCK_MS + 10_000,
                TimeUnit.MILLISECONDS));
        long tookMs = millisSince(start);
        report("send to %s failed after %d ms: %s", topic, tookMs, e.getCause());
        assertTrue(tookMs <= MAX_BLOCK_MS + 1_000, "within max.block.ms + 1 s: " + tookMs + " ms");
        return e.getCause();
    }

    @Test
    void aWrongPasswordIsNamedInKafkasAuthenticationException() {
        try (LogCapture logs = LogCapture.at("warn", "dev.kmeta"); // the failed handshake's ERRORs: expected here
             Producer<String, String> producer = KmetaProducer.create(props(WRONG_PASSWORD))) {
            Throwable e = failureOf(producer, "allowed");
            assertTrue(logs.text().contains("metadata unavailable: org.apache.kafka.common.errors."
                    + "SaslAuthenticationException"), logs.text());
            assertFalse(logs.text().contains(WRONG_PASSWORD), "no secret in the log");
            assertInstanceOf(SaslAuthenticationException.class, e, "Kafka's own type");
            Diagnosis d = Diagnosis.from(e).orElseThrow(() -> new AssertionError("no diagnosis in " + e));
            assertEquals(Diagnosis.Cause.AUTHENTICATION_FAILED, d.cause(), d.message());
            assertTrue(e.getMessage().contains("AUTHENTICATION_FAILED") || e.getMessage().contains("authentication"),
                    e.getMessage());
            assertFalse(e.getMessage().contains(WRONG_PASSWORD) || d.message().contains(WRONG_PASSWORD),
                    "no secret in the message");
        }
    }

    @Test
    void aTopicWithoutDescribeAclIsNamedAtOnceAndTheAllowedTopicIsServed() throws Exception {
        try (Producer<String, String> producer = KmetaProducer.create(props(PASSWORD))) {
            assertEquals(0, producer.send(new ProducerRecord<>("allowed", "v")).get(30, TimeUnit.SECONDS).partition(),
                    "the user, its password and the listener work: only the ACL differs");
            Throwable e = failureOf(producer, "forbidden");
            TopicAuthorizationException refused = assertInstanceOf(TopicAuthorizationException.class, e);
            assertEquals(Set.of("forbidden"), refused.unauthorizedTopics());
            Diagnosis d = Diagnosis.from(e).orElseThrow(() -> new AssertionError("no diagnosis in " + e));
            assertEquals(Diagnosis.Cause.TOPIC_NOT_AUTHORIZED, d.cause(), d.message());
            assertTrue(e.getMessage().contains("TOPIC_AUTHORIZATION_FAILED") && e.getMessage().contains("Describe"),
                    e.getMessage());
            assertEquals(0, producer.send(new ProducerRecord<>("allowed", "again")).get(30, TimeUnit.SECONDS)
                    .partition(), "the allowed topic is still served");
        }
    }
}
