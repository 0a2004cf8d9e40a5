package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.ConnectionEvidence.Record;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.Diagnosis.Cause;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Decides a wait's {@link Diagnosis} from what was recorded - the snapshot, what the brokers said of the topic,
 * each address's connection evidence, the fatal error, a cluster id change - in a fixed order of rules, the first
 * that matches wins:
 * <ol>
 *   <li>a fatal error, or a connection that failed authentication: TLS_HANDSHAKE_FAILED / AUTHENTICATION_FAILED;</li>
 *   <li>no address ever answered: BOOTSTRAP_DNS when the bootstrap names did not resolve, else
 *       BOOTSTRAP_UNREACHABLE;</li>
 *   <li>the topic is refused: TOPIC_NOT_AUTHORIZED;</li>
 *   <li>the topic is missing and the cluster id changed during the wait, or the topic had metadata before a cluster
 *       id change: CLUSTER_ID_CHANGED (before TOPIC_NOT_FOUND: the new cluster answers UNKNOWN_TOPIC_OR_PARTITION
 *       for the old cluster's topics, and "create the topic" would be the wrong fix);</li>
 *   <li>the brokers said the topic does not exist, but an answer had shown it at most
 *       {@link #PROPAGATION_WINDOW_MS} before, or showed it again after an unknown (brokers disagree):
 *       TOPIC_PROPAGATING;</li>
 *   <li>the brokers said the topic does not exist: TOPIC_NOT_FOUND;</li>
 *   <li>no answer about the topic, and a learned broker's address refused kmeta's identity during the wait (KIP-1242):
 *       MISROUTED_CONNECTION;</li>
 *   <li>no answer about the topic, and the brokers learned from the bootstrap answer all fail and never answered:
 *       the advertised addresses are unreachable: ADVERTISED_LISTENER_UNREACHABLE;</li>
 *   <li>no answer about the topic, and every address used during the wait fails now (they answered before):
 *       BROKERS_UNREACHABLE;</li>
 *   <li>the topic is known: PARTITION_OUT_OF_RANGE, or LEADER_NOT_AVAILABLE when the partition has no leader;</li>
 *   <li>the partition has a leader, at the address the snapshot names, whose connection evidence speaks against it:
 *       its address refused kmeta's identity: MISROUTED_CONNECTION; it never accepted a connection while another
 *       address answered: ADVERTISED_LISTENER_UNREACHABLE; it did
 *       before and cannot be reached now (connection refused or not made ready, name not resolving, no answer):
 *       BROKERS_UNREACHABLE;</li>
 *   <li>otherwise NO_ANSWER_IN_TIME.</li>
 * </ol>
 * This class holds the facts, the order, the topic-level rules (3 to 6, 10) and the last one; the connection-level
 * rules (1, 2, 7 to 9, 11: what each address's evidence says) are {@link ConnectionRules}'.
 *
 * <p>Stateless and thread-safe; called by the waiting application thread.
 */
final class Diagnoser {
    /**
     * How long after a topic was first seen an UNKNOWN_TOPIC_OR_PARTITION is taken for propagation rather than
     * absence: librdkafka's {@code topic.metadata.propagation.max.ms} default.
     */
    static final long PROPAGATION_WINDOW_MS = 30_000;

    /** What a diagnosis is decided from. */
    static final class Facts {
        Cluster snapshot;
        String topic;
        int partition = -1;
        long budgetMs;
        TopicEntry entry;
        ConnectionEvidence connections;
        Throwable fatal;
        boolean autoCreateAllowed;
        String previousClusterId;
        boolean clusterIdChangedDuringWait;
        /** When the wait began, ms on the manager's ticker; addresses idle since then are not evidence. */
        long waitStartMs = Long.MIN_VALUE;
    }

    private Diagnoser() {
    }

    static Diagnosis diagnose(Facts f) {
        Collection<Record> records = f.connections.records();
        return build(f, records, decide(f, records));
    }

    /**
     * A record its producer could not deliver although its partition's leader looks healthy to kmeta (known, at
     * the address the snapshot names, nothing failing recorded): LEADER_NOT_RESPONDING, with kmeta's last contact.
     */
    static Diagnosis undelivered(Facts f, Node leader, long nowMs) {
        Record r = f.connections.broker(leader.id());
        String contact = r == null || !r.everAnswered() ? "kmeta has had no reason to ask it anything"
                : "its last answer to kmeta came " + Math.max(0, nowMs - r.lastAnswerMs()) + " ms ago";
        return build(f, f.connections.records(), new Decision(Cause.LEADER_NOT_RESPONDING, "broker " + leader.id()
                + " at " + leader.host() + ":" + leader.port() + " leads partition " + f.partition + " and nothing "
                + "recorded speaks against it (" + contact + "), yet the record was not acknowledged in time",
                "look at broker " + leader.id() + "'s health and request latency (request queue, disks, in-sync "
                        + "replicas with acks=all) and at the network path from this client to it; "
                        + "request.timeout.ms and delivery.timeout.ms bound how long a record waits"));
    }

    private static Diagnosis build(Facts f, Collection<Record> records, Decision d) {
        List<String> evidence = evidence(f, records);
        TopicMetadata t = f.topic == null ? null : f.snapshot.topic(f.topic);
        return Failures.make().diagnosis(d.cause, f.topic, f.partition, f.budgetMs, d.seen, d.fix, evidence,
                t == null ? -1 : t.partitionCount(), f.snapshot.clusterId(), f.previousClusterId);
    }

    /** A rule's verdict: the cause, what was seen, the fix. */
    static final class Decision {
        final Cause cause;
        final String seen;
        final String fix;

        Decision(Cause cause, String seen, String fix) {
            this.cause = cause;
            this.seen = seen;
            this.fix = fix;
        }
    }

    private static Decision decide(Facts f, Collection<Record> records) {
        Decision d = ConnectionRules.security(f, records);
        if (d == null) {
            d = ConnectionRules.unreachable(f, records);
        }
        if (d == null && f.topic != null) {
            d = topic(f, records);
        }
        return d != null ? d : new Decision(Cause.NO_ANSWER_IN_TIME, "brokers answer but no answer about it came "
                + "in time" + ConnectionRules.worst(records, false),
                "look for an overloaded or slow cluster; raise max.block.ms");
    }

    private static Decision topic(Facts f, Collection<Record> records) {
        Cluster c = f.snapshot;
        TopicEntry e = f.entry;
        if (c.unauthorizedTopics().contains(f.topic)) {
            return new Decision(Cause.TOPIC_NOT_AUTHORIZED, "the brokers answered TOPIC_AUTHORIZATION_FAILED",
                    "grant Describe (and Write, to produce) on the topic to this client's principal");
        }
        TopicMetadata t = c.topic(f.topic);
        boolean unknown = e != null && e.lastErrorCode == ResponseMerger.UNKNOWN_TOPIC_OR_PARTITION;
        boolean knownBefore = e != null && e.known;
        if (t == null && f.previousClusterId != null && (f.clusterIdChangedDuringWait || knownBefore)) {
            return new Decision(Cause.CLUSTER_ID_CHANGED, "the cluster id changed from " + f.previousClusterId
                    + " to " + c.clusterId() + (knownBefore ? "; the topic had metadata before" : "")
                    + (unknown ? "; the cluster now answers UNKNOWN_TOPIC_OR_PARTITION for it" : ""),
                    "the bootstrap addresses now lead to another cluster: check DNS and load balancers in front of "
                    + "bootstrap.servers (if the move is intended, create the topic on the new cluster)");
        }
        if (t == null && unknown && e.unknownLooksPropagating(PROPAGATION_WINDOW_MS)) {
            return propagating(e);
        }
        if (t == null && unknown) {
            return new Decision(Cause.TOPIC_NOT_FOUND, "the brokers answered UNKNOWN_TOPIC_OR_PARTITION "
                    + e.errorsInARow + " time(s) in a row (the request " + (f.autoCreateAllowed ? "allowed"
                    : "did not allow") + " auto-creation)", "create the topic, check its name, or enable "
                    + "auto.create.topics.enable on the brokers");
        }
        if (t == null) {
            return ConnectionRules.noAnswer(f, records);
        }
        PartitionMetadata p = t.partition(f.partition);
        if (p == null) {
            return new Decision(Cause.PARTITION_OUT_OF_RANGE, "the topic has " + t.partitionCount()
                    + " partitions", "send to a partition below " + t.partitionCount() + ", or add partitions");
        }
        if (!p.hasLeader() || c.node(p.leaderId()) == null) {
            return new Decision(Cause.LEADER_NOT_AVAILABLE, "the partition has had no leader (replicas "
                    + Arrays.toString(p.replicas()) + ", offline " + Arrays.toString(p.offlineReplicas()) + ")",
                    "bring the partition's replicas back, or check the controller's logs");
        }
        return ConnectionRules.leader(f, c.node(p.leaderId()), records);
    }

    /** The brokers call a topic unknown that an answer showed moments before, or that one broker knows. */
    private static Decision propagating(TopicEntry e) {
        int again = e.seenAgainAfterUnknown;
        String shown = again > 0 ? "the brokers disagree: answers showed the topic again " + again + " time(s) after "
                + "others had called it unknown" : "an answer showed the topic " + (e.unknownSinceMs - e.firstSeenMs)
                + " ms before the first of them";
        return new Decision(Cause.TOPIC_PROPAGATING, "the brokers answered UNKNOWN_TOPIC_OR_PARTITION "
                + e.errorsInARow + " time(s) in a row, but " + shown + ": the topic was created moments ago and is "
                + "still propagating to every broker (or was deleted as soon as created)", "wait after creating a "
                + "topic before sending to it (until describeTopics answers with every partition's leader), or raise "
                + "max.block.ms so a send outlasts the propagation");
    }

    /**
     * True when the evidence recorded for {@code leader} (at the address the snapshot names) speaks against it: its
     * last event is a problem. What a partition's diagnosis looks at first; allocation-free, so a producer may ask
     * for every record it checks.
     */
    static boolean leaderInDoubt(ConnectionEvidence connections, Node leader) {
        Record r = connections.broker(leader.id());
        return r != null && r.isAt(leader.host(), leader.port()) && r.failingNow();
    }

    private static List<String> evidence(Facts f, Collection<Record> records) {
        List<String> lines = new ArrayList<>();
        for (Record r : records) {
            lines.add(r.toString());
        }
        TopicEntry e = f.entry;
        if (e != null) {
            lines.add("topic " + f.topic + ": " + e.responses + " answer(s) about it, last error code "
                    + e.lastErrorCode + (e.errorsInARow > 0 ? " (" + e.errorsInARow + " in a row)" : ""));
        }
        if (f.snapshot.clusterId() != null) {
            lines.add("cluster id " + f.snapshot.clusterId() + (f.previousClusterId == null ? ""
                    : " (was " + f.previousClusterId + ")"));
        }
        return lines;
    }
}
