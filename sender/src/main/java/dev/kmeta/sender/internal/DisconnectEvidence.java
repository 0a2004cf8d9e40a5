package dev.kmeta.sender.internal;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.internal.EvidenceRecorder;
import dev.kmeta.metadata.internal.MetadataManager;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Set;

/**
 * What a disconnect the client reports tells the evidence, for {@link MetadataDriver#onDisconnect}: an
 * authentication or TLS failure, or a failed attempt with its cause (the resolver's DNS failure for that host, else a
 * plain disconnect), and - once per broker and address - the WARN that a learned broker's advertised address could
 * not be connected to while an address answered.
 *
 * <p>Confined to the thread that polls the client, as the driver is.
 */
final class DisconnectEvidence {
    /** The driver's logger, as when this was part of it: log settings and captures name {@code MetadataDriver}. */
    private static final Logger log = LoggerFactory.getLogger(MetadataDriver.class);

    private final MetadataManager manager;
    private final EvidenceRecorder evidence;
    private final RecordingResolver resolver;
    private final String clientId;
    /** Learned brokers already reported at WARN as never reachable at their address ("id@host:port"). */
    private final Set<String> reportedUnreachable = new HashSet<>();

    DisconnectEvidence(MetadataManager manager, EvidenceRecorder evidence, RecordingResolver resolver,
                       String clientId) {
        this.manager = manager;
        this.evidence = evidence;
        this.resolver = resolver;
        this.clientId = clientId;
    }

    /** An authentication (or TLS) failure on {@code record}'s connection: {@code failure} as given to users. */
    void authenticationFailed(ConnectionEvidence.Record record, AuthenticationException failure,
                              AuthenticationException reported, long nowMs) {
        ConnectionEvidence.Problem kind = failure instanceof SslAuthenticationException
                ? ConnectionEvidence.Problem.TLS_HANDSHAKE : ConnectionEvidence.Problem.AUTHENTICATION;
        evidence.problem(record, kind, failure != reported ? failure.getMessage()
                : AuthFailures.rootMessage(failure), nowMs);
    }

    /** A failed attempt or a dropped connection on {@code record}: DNS if the resolver failed for its host. */
    void disconnected(ConnectionEvidence.Record record, long nowMs) {
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
    void warnIfNeverReachable(ConnectionEvidence.Record record) {
        if (record.everConnected() || !anyAddressAnswered()
                || !reportedUnreachable.add(record.nodeId() + "@" + record.address())) {
            return;
        }
        log.warn("[{}] broker {} advertises {}, which could not be connected to, while the bootstrap answered: if "
                + "that stays so, check advertised.listeners on the broker (kmeta diagnoses the partitions it leads as "
                + "ADVERTISED_LISTENER_UNREACHABLE)", clientId, record.nodeId(), record.address());
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
