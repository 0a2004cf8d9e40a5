package dev.kmeta.testkit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What a {@link KafkaCluster} does with its shared Admin client (INTERNAL listener): topics, partitions, SCRAM users
 * and ACLs, each followed by the wait ({@link Readiness}) that makes its effect visible to a client started next.
 * Every Admin call is bounded ({@value Readiness#TIMEOUT_S} s) and its failure names the operation.
 *
 * <p>Thread-safe: it keeps no state; the Admin client is the cluster's current one.
 */
final class AdminOperations {
    private final Supplier<Admin> admin;
    private final Readiness readiness;

    AdminOperations(Supplier<Admin> admin, Readiness readiness) {
        this.admin = admin;
        this.readiness = readiness;
    }

    /** The configuration of the shared Admin client on these INTERNAL listeners ({@code host:port,...}). */
    static Map<String, Object> adminConfig(String internalBootstrap) {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, internalBootstrap);
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "kmeta-testkit-admin");
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) Readiness.TIMEOUT.toMillis());
        config.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        config.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 200);
        return config;
    }

    /** See {@link KafkaCluster#createTopic(String, int, int, Map)}. */
    void createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        NewTopic topic = new NewTopic(name, partitions, (short) replicationFactor).configs(configs);
        await(admin.get().createTopics(List.of(topic)).all(), "create topic " + name);
        awaitTopic(name, partitions);
    }

    /** See {@link KafkaCluster#addPartitions}. */
    void addPartitions(String name, int totalPartitions) {
        await(admin.get().createPartitions(Map.of(name, NewPartitions.increaseTo(totalPartitions))).all(),
                "add partitions to " + name);
        awaitTopic(name, totalPartitions);
    }

    /** See {@link KafkaCluster#deleteTopic}. */
    void deleteTopic(String name) {
        await(admin.get().deleteTopics(List.of(name)).all(), "delete topic " + name);
        readiness.awaitTopicDeleted(name);
    }

    private void awaitTopic(String name, int partitions) {
        readiness.awaitTopicMetadata(name, partitions);
        awaitLeadersServe(name, partitions);
    }

    /** Until the leader of every partition answers ListOffsets (the Admin client retries until then). */
    private void awaitLeadersServe(String name, int partitions) {
        Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(name, p), OffsetSpec.latest());
        }
        await(admin.get().listOffsets(latest).all(), "leaders of " + name + " serving");
    }

    /** See {@link KafkaCluster#leader}. */
    int leader(String topic, int partition) {
        TopicDescription description = await(admin.get().describeTopics(List.of(topic)).allTopicNames(),
                "describe topic " + topic).get(topic);
        for (TopicPartitionInfo info : description.partitions()) {
            if (info.partition() == partition) {
                return info.leader() == null || info.leader().isEmpty() ? -1 : info.leader().id();
            }
        }
        throw new IllegalArgumentException("topic " + topic + " has no partition " + partition);
    }

    /** See {@link KafkaCluster#createScramUser(String, String, String)}; {@code security}: the CLIENT listener's. */
    void createScramUser(ClientSecurity security, String mechanism, String user, String password) {
        if (!security.isSasl()) {
            throw new IllegalStateException("the CLIENT listener is " + security.protocol() + ", not SASL");
        }
        Map<String, Object> login = security.clientProperties(mechanism, user, password);
        ScramMechanism scram = ScramMechanism.fromMechanismName(mechanism);
        if (scram == ScramMechanism.UNKNOWN) {
            throw new IllegalArgumentException("not a SCRAM mechanism: " + mechanism);
        }
        await(admin.get().alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                new ScramCredentialInfo(scram, 4096), password))).all(), "create SCRAM user " + user);
        readiness.awaitLogin("SCRAM user " + user + " (" + mechanism + ") accepted", login);
    }

    /** See {@link KafkaCluster#allowTopic}. */
    void allowTopic(String user, String topic, AclOperation... operations) {
        ResourcePattern resource = new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL);
        String principal = "User:" + user;
        List<AclBinding> bindings = new ArrayList<>();
        for (AclOperation operation : operations) {
            bindings.add(new AclBinding(resource, new AccessControlEntry(principal, "*", operation,
                    AclPermissionType.ALLOW)));
        }
        await(admin.get().createAcls(bindings).all(), "create ACLs " + bindings);
        AclBindingFilter filter = new AclBindingFilter(new ResourcePatternFilter(ResourceType.TOPIC, topic,
                PatternType.LITERAL), new AccessControlEntryFilter(principal, null, AclOperation.ANY,
                AclPermissionType.ANY));
        Object[] last = new Object[1];
        Readiness.waitUntil("ACLs of " + principal + " on topic " + topic + " listed", () -> {
            Collection<AclBinding> listed = await(admin.get().describeAcls(filter).values(),
                    "describe ACLs of " + principal);
            last[0] = listed;
            return listed.containsAll(bindings);
        }, () -> "last listed: " + last[0]);
    }

    /** The future's value within {@value Readiness#TIMEOUT_S} s; a failure names {@code what}. */
    static <T> T await(KafkaFuture<T> future, String what) {
        try {
            return future.get(Readiness.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + what, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " timed out after " + Readiness.TIMEOUT.toSeconds() + " s", e);
        }
    }
}
