package dev.kmeta.cli;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeMetadataQuorumOptions;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Asks who the active controller is - which the controller id of a Metadata answer does not say on KRaft: there the
 * brokers put a random live broker in it, another one from answer to answer on a multi-broker cluster. The active
 * KRaft controller is the metadata quorum's leader, which {@link Admin#describeMetadataQuorum()} asks (KRaft brokers of
 * 3.3 and later forward it to the quorum; it needs DESCRIBE on CLUSTER). Brokers that do not know the request are
 * ZooKeeper-era brokers (or a KRaft preview before 3.3); on ZooKeeper the Metadata answer's id is the controller.
 *
 * <p>The Admin client is made at the first {@link #ask}, with the command's client properties (its own keys only).
 * Not thread-safe: one command's thread uses it (the Admin client's thread completes the answers).
 */
final class ControllerProbe implements AutoCloseable {
    /** What kind of cluster the answer revealed. */
    enum Mode {
        /** The metadata quorum answered: {@link Answer#leaderId()} is the active controller. */
        KRAFT,
        /** The brokers do not know DescribeQuorum: the Metadata answers' controller id is the controller. */
        ZOOKEEPER,
        /** No answer (not authorized, no broker reachable in time...): {@link Answer#problem()} says why. */
        UNKNOWN
    }

    /** One answer: the mode, the quorum leader (KRAFT; else -1), what went wrong (UNKNOWN; else null). */
    record Answer(Mode mode, int leaderId, String problem) {
        Answer {
            Objects.requireNonNull(mode, "mode");
        }
    }

    private final Map<String, Object> adminProps;
    private Admin admin;

    /** {@code props}: the command's client properties (bootstrap, security); unknown keys are left out. */
    ControllerProbe(Map<String, Object> props, String clientId) {
        Map<String, Object> p = new HashMap<>();
        props.forEach((key, value) -> {
            if (AdminClientConfig.configNames().contains(key)) {
                p.put(key, value);
            }
        });
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        this.adminProps = p;
    }

    /** What a DescribeQuorum answer, or its failure, says (exactly one of the two is non-null). */
    static Answer classify(Integer leaderId, Throwable error) {
        if (error == null) {
            return leaderId != null && leaderId >= 0 ? new Answer(Mode.KRAFT, leaderId, null)
                    : new Answer(Mode.UNKNOWN, -1, "the metadata quorum has no leader now");
        }
        Throwable cause = error;
        while ((cause instanceof ExecutionException || cause instanceof java.util.concurrent.CompletionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof UnsupportedVersionException) {
            return new Answer(Mode.ZOOKEEPER, -1, null);
        }
        if (cause instanceof ClusterAuthorizationException) {
            return new Answer(Mode.UNKNOWN, -1, "not authorized to describe the metadata quorum (needs DESCRIBE on "
                    + "CLUSTER)");
        }
        return new Answer(Mode.UNKNOWN, -1, "the metadata quorum did not answer: " + Connection.oneLine(cause));
    }

    /** Asks once, at most {@code timeoutMs}; the future always completes (with an UNKNOWN answer on failure). */
    CompletableFuture<Answer> ask(long timeoutMs) {
        CompletableFuture<Answer> answer = new CompletableFuture<>();
        try {
            if (admin == null) {
                admin = Admin.create(adminProps);
            }
            int timeout = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeoutMs));
            admin.describeMetadataQuorum(new DescribeMetadataQuorumOptions().timeoutMs(timeout)).quorumInfo()
                    .whenComplete((info, error) -> answer.complete(classify(info == null ? null : info.leaderId(),
                            error)));
        } catch (RuntimeException e) { // a setting the Admin client does not take, a closed client
            answer.complete(classify(null, e));
        }
        return answer;
    }

    /** {@link #ask} and wait for the answer (bounded by {@code timeoutMs} and a second more). */
    Answer askNow(long timeoutMs) {
        try {
            return ask(timeoutMs).get(timeoutMs + 1_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(Mode.UNKNOWN, -1, "interrupted");
        } catch (ExecutionException | TimeoutException e) {
            return classify(null, e);
        }
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
        }
    }
}
