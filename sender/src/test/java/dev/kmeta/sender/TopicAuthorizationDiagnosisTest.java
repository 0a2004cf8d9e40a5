package dev.kmeta.sender;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import java.util.Set;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.Diagnosis.Cause;
import dev.kmeta.metadata.TopicException;
import dev.kmeta.testkit.ClientSecurity;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclOperation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.sender.ItSupport.millisSince;
import static dev.kmeta.sender.ItSupport.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A SASL_PLAINTEXT CLIENT listener with KRaft's StandardAuthorizer enforcing ACLs: a SCRAM user that may describe
 * one topic and not another. The refused topic fails the wait at once (not at the deadline) with a
 * {@link TopicException} whose diagnosis is TOPIC_NOT_AUTHORIZED, while the allowed topic is served.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TopicAuthorizationDiagnosisTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder()
            .clientSecurity(ClientSecurity.saslPlaintext()).withAuthorizer());

    private static final String USER = "app-user";
    private static final String PASSWORD = "pw-" + UUID.randomUUID();
    private static final long BUDGET_MS = 30_000;

    @BeforeAll
    static void usersTopicsAndAcls() {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createScramUser(USER, PASSWORD);
        cluster.createTopic("allowed", 2, 1);
        cluster.createTopic("forbidden", 2, 1);
        cluster.allowTopic(USER, "allowed", AclOperation.DESCRIBE, AclOperation.WRITE);
        // The brokers apply ACLs from the metadata log: wait until the user sees the allowed topic.
        try (Admin asUser = Admin.create(props())) {
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> asUser.describeTopics(
                    List.of("allowed")).allTopicNames().get(5, TimeUnit.SECONDS).containsKey("allowed"));
        }
    }

    private static Map<String, Object> props() {
        Map<String, Object> p = new HashMap<>(KAFKA.cluster().clientProperties(USER, PASSWORD));
        p.put("client.id", "authz-" + System.nanoTime());
        p.put("allow.auto.create.topics", false);
        return p;
    }

    @Test
    void aTopicWithoutDescribeAclFailsAtOnceAsNotAuthorized() {
        try (KafkaMetadata m = KafkaMetadata.create(props())) {
            assertEquals(2, m.awaitTopic("allowed", m.newDeadline(Duration.ofMillis(BUDGET_MS))).partitionCount("allowed"),
                    "the user, its password and the listener work: only the ACL differs");

            long start = System.nanoTime();
            TopicAuthorizationException kafka = assertThrows(TopicAuthorizationException.class,
                    () -> m.awaitTopic("forbidden", m.newDeadline(Duration.ofMillis(BUDGET_MS))));
            assertEquals(Set.of("forbidden"), kafka.unauthorizedTopics());
            TopicException e = assertInstanceOf(TopicException.class, kafka.getCause());
            long tookMs = millisSince(start);
            report("TOPIC_NOT_AUTHORIZED after %d ms: %s", tookMs, e.getMessage());
            assertTrue(tookMs < 5_000, "at once, not at the deadline: " + tookMs + " ms");
            assertEquals(TopicException.Reason.NOT_AUTHORIZED, e.reason());
            assertEquals("forbidden", e.topic());
            Diagnosis d = e.diagnosis();
            assertEquals(d, Diagnosis.from(kafka).orElseThrow(), "the diagnosis is reachable from the Kafka exception");
            assertNotNull(d, e.getMessage());
            report("  diagnosis: %s", d.message());
            assertEquals(Cause.TOPIC_NOT_AUTHORIZED, d.cause(), d.message());
            assertTrue(e.getMessage().contains("TOPIC_AUTHORIZATION_FAILED"), e.getMessage());
            assertTrue(d.fix().contains("grant Describe"), d.fix());

            // A later wait fails at once too, and the allowed topic is still served from the same client.
            long again = System.nanoTime();
            assertThrows(TopicAuthorizationException.class, () -> m.awaitTopic("forbidden", 1, m.newDeadline(Duration.ofMillis(BUDGET_MS))));
            assertTrue(millisSince(again) < 1_000, "a later wait fails at once");
            assertEquals(2, m.awaitTopic("allowed", 1, m.newDeadline(Duration.ofMillis(BUDGET_MS))).partitionCount("allowed"));
        }
    }
}
