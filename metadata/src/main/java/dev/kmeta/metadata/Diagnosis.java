package dev.kmeta.metadata;

import dev.kmeta.metadata.internal.Failures;

import java.util.List;

/**
 * Why a wait for metadata ended without an answer: a cause from a closed set, one line saying what was seen, the fix
 * to try, and the evidence it was decided from (per broker address: attempts, answers, last problem; the topic's
 * last error code from the brokers; the partition count and cluster id when known).
 *
 * <p>Immutable and thread-safe. Decided only from what the sender recorded, never guessed.
 */
public final class Diagnosis {
    static {
        Failures.install(new Construction()); // kmeta's internals build diagnoses and exceptions through it
    }

    /** The classic metadata failures, each with its own fix. */
    public enum Cause {
        /** No bootstrap address ever answered: connections refused, timed out or unreachable. */
        BOOTSTRAP_UNREACHABLE,
        /** A bootstrap host name does not resolve. */
        BOOTSTRAP_DNS,
        /** SASL authentication failed (wrong user or password, mechanism not enabled). */
        AUTHENTICATION_FAILED,
        /** The TLS handshake failed (untrusted certificate, host name mismatch, TLS against a plaintext port). */
        TLS_HANDSHAKE_FAILED,
        /** The bootstrap answered, but the address it advertises for the needed broker cannot be reached. */
        ADVERTISED_LISTENER_UNREACHABLE,
        /** The brokers answered UNKNOWN_TOPIC_OR_PARTITION for the whole budget. */
        TOPIC_NOT_FOUND,
        /**
         * The brokers answered UNKNOWN_TOPIC_OR_PARTITION at the end, but an answer had shown the topic moments before
         * (its partitions or its topic id), or the brokers disagree: a topic just created and still propagating to
         * every broker.
         */
        TOPIC_PROPAGATING,
        /** TOPIC_AUTHORIZATION_FAILED: no Describe permission on the topic. */
        TOPIC_NOT_AUTHORIZED,
        /** The topic exists with N partitions and the wait asked for partition N or above. */
        PARTITION_OUT_OF_RANGE,
        /** The partition exists but had no leader (all replicas offline) for the whole budget. */
        LEADER_NOT_AVAILABLE,
        /** Brokers answered before, but none of the addresses tried can be reached now. */
        BROKERS_UNREACHABLE,
        /** The bootstrap now leads to another cluster than before. */
        CLUSTER_ID_CHANGED,
        /**
         * A learned broker's address leads to another broker, of this cluster or another one: the broker refused the
         * cluster id and node id kmeta sent (KIP-1242, brokers 4.4+), and kmeta rebootstrapped.
         */
        MISROUTED_CONNECTION,
        /** Brokers answer, but the answer did not come within the budget (a slow or overloaded cluster). */
        NO_ANSWER_IN_TIME,
        /**
         * A record was not acknowledged in time although its partition's leader is known and nothing kmeta recorded
         * speaks against it (a slow or stuck broker, or a path only the producer's own connections take).
         */
        LEADER_NOT_RESPONDING,
        /**
         * The topic was deleted and re-created under the same name (a new topic id) with fewer partitions than the
         * record's partition, or the record was queued for the deleted topic: it cannot go to the topic it was meant
         * for, and kmeta does not send it to the new one.
         */
        TOPIC_RECREATED
    }

    private final Cause cause;
    private final String topic;
    private final int partition;
    private final long budgetMs;
    private final String seen;
    private final String fix;
    private final List<String> evidence;
    private final int partitionCount;
    private final String clusterId;
    private final String previousClusterId;

    /**
     * @param cause             the cause
     * @param topic             the topic waited for, or null (a version wait)
     * @param partition         the partition, or -1
     * @param budgetMs          the wait's budget
     * @param seen              one line: the most useful fact, e.g. which address failed how
     * @param fix               what to try
     * @param evidence          one line per broker address and per topic answer
     * @param partitionCount    the topic's partition count when known, else -1
     * @param clusterId         the cluster id seen, or null
     * @param previousClusterId the cluster id before a change, or null when it did not change
     */
    Diagnosis(Cause cause, String topic, int partition, long budgetMs, String seen, String fix,
                     List<String> evidence, int partitionCount, String clusterId, String previousClusterId) {
        this.cause = cause;
        this.topic = topic;
        this.partition = partition;
        this.budgetMs = budgetMs;
        this.seen = seen;
        this.fix = fix;
        this.evidence = List.copyOf(evidence);
        this.partitionCount = partitionCount;
        this.clusterId = clusterId;
        this.previousClusterId = previousClusterId;
    }

    /**
     * A record that cannot be delivered because its topic was deleted and re-created under the same name: the old and
     * new topic ids and partition counts are the evidence ({@link #partitionCount()} is the new count). Made by a
     * producer that saw the topic's id change in kmeta's snapshots; thread-safe like every diagnosis.
     *
     * @param topic     the topic
     * @param partition the record's partition, or -1 when not yet chosen
     * @param oldId     the topic id the record was sent against
     * @param newId     the topic id now
     * @param oldCount  the old topic's partition count
     * @param newCount  the new topic's partition count
     */
    public static Diagnosis topicRecreated(String topic, int partition, java.util.UUID oldId, java.util.UUID newId,
                                           int oldCount, int newCount) {
        String seen = "the topic was deleted and re-created: topic id " + kafkaForm(oldId) + " -> "
                + kafkaForm(newId) + ", partitions " + oldCount + " -> " + newCount;
        String fix = partition >= newCount
                ? "send to a partition below " + newCount + " (the new topic's count), or add partitions to it"
                : "send the record again: the new topic is a different log (records queued for the old one are "
                + "not moved to it)";
        return new Diagnosis(Cause.TOPIC_RECREATED, topic, partition, 0, seen, fix,
                List.of("topic " + topic + " id " + kafkaForm(oldId) + " (" + oldCount + " partitions) was replaced "
                        + "by id " + kafkaForm(newId) + " (" + newCount + " partitions)"), newCount, null, null);
    }

    /** A topic id as Kafka's tools print it (URL-safe base64 of its 16 bytes, no padding). */
    private static String kafkaForm(java.util.UUID id) {
        if (id == null) {
            return "none";
        }
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16);
        b.putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }

    /** The cause. */
    public Cause cause() {
        return cause;
    }

    /** The topic waited for, or null. */
    public String topic() {
        return topic;
    }

    /** The partition waited for, or -1. */
    public int partition() {
        return partition;
    }

    /** The budget of the wait, ms. */
    public long budgetMs() {
        return budgetMs;
    }

    /** The one most useful fact. */
    public String seen() {
        return seen;
    }

    /** The fix to try. */
    public String fix() {
        return fix;
    }

    /** The evidence, one line each. */
    public List<String> evidence() {
        return evidence;
    }

    /** The topic's partition count when known, else -1. */
    public int partitionCount() {
        return partitionCount;
    }

    /** The cluster id seen, or null. */
    public String clusterId() {
        return clusterId;
    }

    /** The cluster id before it changed, or null when it did not change. */
    public String previousClusterId() {
        return previousClusterId;
    }

    /**
     * The diagnosis carried by {@code error}, by any exception in its cause chain, or by one they suppressed (where
     * Kafka had set a cause already, kmeta's reason is added as a suppressed exception): how an application finds kmeta's
     * reason inside the Kafka exception it caught (a {@code TimeoutException}, {@code TopicAuthorizationException},
     * {@code SaslAuthenticationException}...). Empty when the chain holds none.
     */
    public static java.util.Optional<Diagnosis> from(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            Diagnosis d = carried(t);
            for (int i = 0; d == null && i < t.getSuppressed().length; i++) {
                d = from(t.getSuppressed()[i]).orElse(null);
            }
            if (d != null) {
                return java.util.Optional.of(d);
            }
        }
        return java.util.Optional.empty();
    }

    private static Diagnosis carried(Throwable t) {
        if (t instanceof MetadataTimeoutException) {
            return ((MetadataTimeoutException) t).diagnosis();
        }
        if (t instanceof TopicException) {
            return ((TopicException) t).diagnosis();
        }
        if (t instanceof MetadataFatalException) {
            return ((MetadataFatalException) t).diagnosis();
        }
        return null;
    }

    /** A line that reads well in a log on its own: cause, what, budget, the most useful fact, the fix. */
    public String message() {
        String what = topic == null ? "" : partition < 0 ? " for topic " + topic
                : " for partition " + partition + " of topic " + topic;
        String after = budgetMs > 0 ? " after " + budgetMs + " ms" : "";
        String head = cause == Cause.TOPIC_RECREATED ? ": cannot deliver a record" : ": no metadata";
        return cause + head + what + after + ": " + seen + ". Fix: " + fix;
    }

    @Override
    public String toString() {
        return message();
    }
}
