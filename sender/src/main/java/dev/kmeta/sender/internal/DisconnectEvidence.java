package dev.kmeta.sender.internal;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.internal.EvidenceRecorder;
import dev.kmeta.metadata.internal.MetadataManager;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Set;

/**
 * What a disconnect the client reports leaves in the {@link EvidenceRecorder}, for the {@link MetadataDriver}: a TLS
 * or SASL failure as the address's problem; any other disconnect as DNS (the resolver saw the name fail) or
 * DISCONNECTED, also for a learned broker kmeta never used itself (in driven mode, the producer's connection to a
 * leader); and, once per broker and address, a WARN line for a learned broker that never accepted a connection while
 * an address answered (its advertised listener is likely wrong). Each new problem updates the manager's connection
 * summary.
 *
 * <p>Confined to the sender thread (disconnects are reported inside the client's {@code poll}).
 */
final class DisconnectEvidence {
    private static final Logger log = LoggerFactory.getLogger(DisconnectEvidence.class);

    private final MetadataManager manager;
    private final MetadataConfig config;
    private final RecordingResolver resolver;
    private final EvidenceRecorder evidence;
    /** Learned brokers already reported at WARN as never reachable at their address ("id@host:port"). */
    private final Set<String> reportedUnreachable = new HashSet<>();

    DisconnectEvidence(MetadataManager manager, MetadataConfig config, RecordingResolver resolver,
                       EvidenceRecorder evidence) {
        this.manager = manager;
        this.config = config;
        this.resolver = resolver;
        this.evidence = evidence;
    }

    /**
     * Records an authentication failure of {@code nodeId}'s connection (TLS handshake or SASL) and returns the
     * failure to report to every waiter (an SSL failure under a SASL-less protocol says so).
     */
    AuthenticationException authenticationFailed(String nodeId, AuthenticationException authFailure, long nowMs) {
        AuthenticationException failure = AuthFailures.notSasl(authFailure, config.securityProtocol());
        ConnectionEvidence.Record record = evidence.get(nodeId);
        if (record != null) {
            ConnectionEvidence.Problem kind = failure instanceof SslAuthenticationException
                    ? ConnectionEvidence.Problem.TLS_HANDSHAKE : ConnectionEvidence.Problem.AUTHENTICATION;
            evidence.problem(record, kind, failure != authFailure ? failure.getMessage()
                    : AuthFailures.rootMessage(failure), nowMs);
        }
        return failure;
    }

    /**
     * Records that {@code nodeId}'s connection closed; {@code learned} is the snapshot's broker of that id, or null.
     * Returns the address's record, or null when kmeta knows the node neither as an address it used nor as a
     * learned broker.
     */
    ConnectionEvidence.Record disconnected(String nodeId, dev.kmeta.cluster.Node learned, long nowMs) {
        ConnectionEvidence.Record record = evidence.get(nodeId);
        if (record == null && learned != null) {
            // A learned broker kmeta never used itself: in driven mode, the producer's connection to a leader.
            record = evidence.record(nodeId, learned.address(), false);
        }
        if (record != null) {
            recordProblem(record, nowMs);
            if (learned != null) {
                warnIfNeverReachable(record);
            }
        }
        return record;
    }

    private void recordProblem(ConnectionEvidence.Record record, long nowMs) {
        String host = record.address().substring(0, record.address().lastIndexOf(':'));
        String dns = resolver.failureFor(host);
        evidence.unannouncedAttemptFailed(record, nowMs);
        if (dns != null) {
            evidence.problem(record, ConnectionEvidence.Problem.DNS, dns, nowMs);
        } else {
            evidence.problem(record, ConnectionEvidence.Problem.DISCONNECTED, null, nowMs);
        }
        manager.recordConnectionProblem(evidence.summary());
    }

    /**
     * Once per broker and address: a learned broker that failed before it ever accepted a connection, while an
     * address answered - its advertised listener is likely wrong, the misconfiguration users hit most.
     */
    private void warnIfNeverReachable(ConnectionEvidence.Record record) {
        if (record.everConnected() || !anyAddressAnswered()
                || !reportedUnreachable.add(record.nodeId() + "@" + record.address())) {
            return;
        }
        log.warn("[{}] broker {} advertises {}, which could not be connected to, while the bootstrap answered: if "
                + "that stays so, check advertised.listeners on the broker (kmeta diagnoses the partitions it leads as "
                + "ADVERTISED_LISTENER_UNREACHABLE)", config.clientId(), record.nodeId(), record.address());
    }

    private boolean anyAddressAnswered() {
        for (ConnectionEvidence.Record r : evidence.records()) {
            if (r.everAnswered()) {
                return true;
            }
        }
        return false;
    }
}
