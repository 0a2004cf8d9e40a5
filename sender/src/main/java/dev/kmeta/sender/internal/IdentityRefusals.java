package dev.kmeta.sender.internal;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.internal.EvidenceRecorder;
import dev.kmeta.metadata.internal.MetadataManager;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * KIP-1242 refusals for the {@link MetadataDriver} (kafka-clients 4.4 sends the snapshot's cluster id and the node id
 * with ApiVersions; a broker that is not that node of that cluster answers {@code REBOOTSTRAP_REQUIRED}). kafka-clients
 * does not say which node refused, so this keeps, per step, the learned brokers whose connection closed before it
 * finished ApiVersions ({@link HandshakeTracker} on kmeta's own client; without it, those never connected), and on a
 * refusal marks them {@code MISROUTED} in the evidence, closes the connections left stuck in ApiVersions, counts the
 * refusal and logs it (WARN once per suspect, then DEBUG). The rebootstrap that follows is the driver's.
 *
 * <p>Confined to the sender thread, except {@link #count()}, which any thread may read.
 */
@SuppressKafkaInternalApiUsage("reads the client's (KafkaClient) connection states to pin a KIP-1242 refusal on the "
        + "right broker")
final class IdentityRefusals {
    /** The driver's logger, as when this was part of it: log settings and captures name {@code MetadataDriver}. */
    private static final Logger log = LoggerFactory.getLogger(MetadataDriver.class);

    private final MetadataManager manager;
    private final String clientId;
    private final EvidenceRecorder evidence;
    private final AtomicLong count = new AtomicLong();
    /**
     * Learned brokers whose connection the client closed since the last step before it finished ApiVersions: the
     * ones a KIP-1242 refusal may have come from.
     */
    private final List<ConnectionEvidence.Record> closedBeforeReady = new ArrayList<>();
    /** Addresses already reported at WARN as misrouted ("broker id at host:port", or "unknown"). */
    private final Set<String> reportedMisrouted = new HashSet<>();
    /** kmeta's own client's versions, telling which closed connections never finished ApiVersions; else null. */
    private HandshakeTracker handshakes;

    IdentityRefusals(MetadataManager manager, MetadataConfig config, EvidenceRecorder evidence) {
        this.manager = manager;
        this.clientId = config.clientId();
        this.evidence = evidence;
        if (config.metadataClusterCheckEnable() && !KafkaClientsCompat.sendsClusterIdentity()) {
            log.info("[{}] metadata.cluster.check.enable: kafka-clients {} does not send the client's cluster id "
                    + "and node id (KIP-1242 needs 4.4); a connection to the wrong cluster shows only as a cluster id "
                    + "change in a Metadata answer", clientId, KafkaClientsCompat.version());
        }
    }

    /** See {@link MetadataDriver#trackHandshakes}. */
    void trackHandshakes(HandshakeTracker tracker) {
        this.handshakes = tracker;
    }

    /** Times a broker refused the cluster id and node id kmeta sent. Any thread. */
    long count() {
        return count.get();
    }

    /** A new step: the connections closed before it are no suspects any more. */
    void stepBegins() {
        closedBeforeReady.clear();
    }

    /** A learned broker's connection closed ({@code record}: its evidence): a suspect unless it did ApiVersions. */
    void learnedBrokerDisconnected(String nodeId, ConnectionEvidence.Record record) {
        if (handshakes != null ? handshakes.closedBeforeVersions(nodeId)
                : record.lastProblem() == ConnectionEvidence.Problem.CONNECT_FAILED) {
            closedBeforeReady.add(record);
        }
    }

    /**
     * A broker refused kmeta's identity: the refusing connection is one the client closed before it finished
     * ApiVersions (when its node is in the node list), or one still waiting in ApiVersions (a learned broker probed or
     * used while the node list is the bootstrap's: the client leaves that one open, stuck, so it is closed here). A
     * broker marked here by mistake (its connection was being set up in the same moment) is cleared at its next
     * connection. Called outside the client's poll, for the {@code times} refusals its last poll reported. Returns the
     * line that says what happened, for the rebootstrap.
     */
    String refused(KafkaClient client, long nowMs, long clientNowMs, int times) {
        count.addAndGet(times);
        String clusterId = manager.fetch().clusterId();
        List<ConnectionEvidence.Record> refused = new ArrayList<>(closedBeforeReady);
        closedBeforeReady.clear();
        refused.addAll(closeStuckInApiVersions(client, clientNowMs, refused));
        List<String> suspects = markMisrouted(refused, clusterId, nowMs);
        String who = suspects.isEmpty() ? "a broker" : String.join(" or ", suspects);
        String line = who + " refused the cluster id " + clusterId + " and node id kmeta sent (REBOOTSTRAP_REQUIRED "
                + "to ApiVersions, KIP-1242): the address leads to another broker or cluster";
        report(line, suspects);
        return line;
    }

    /** Marks each record MISROUTED and returns "broker id at host:port" for each. */
    private List<String> markMisrouted(List<ConnectionEvidence.Record> refused, String clusterId, long nowMs) {
        List<String> suspects = new ArrayList<>();
        for (ConnectionEvidence.Record r : refused) {
            evidence.problem(r, ConnectionEvidence.Problem.MISROUTED, "the broker there refused cluster id "
                    + clusterId + " and node id " + r.nodeId() + " (ApiVersions answered REBOOTSTRAP_REQUIRED, "
                    + "KIP-1242)", nowMs);
            suspects.add("broker " + r.nodeId() + " at " + r.address());
        }
        manager.recordConnectionProblem(evidence.summary());
        return suspects;
    }

    /** WARN the first time a suspect (or an unknown broker) refuses, DEBUG for repeats. */
    private void report(String line, List<String> suspects) {
        if (reportedMisrouted.addAll(suspects.isEmpty() ? List.of("unknown") : suspects)) {
            log.warn("[{}] {}; check the DNS names, load balancers and advertised.listeners of the brokers "
                    + "(repeats are logged at DEBUG)", clientId, line);
        } else {
            log.debug("[{}] {}", clientId, line);
        }
    }

    /** Learned brokers whose connection is open but not ready (in ApiVersions), not yet in {@code seen}: closed. */
    private List<ConnectionEvidence.Record> closeStuckInApiVersions(KafkaClient client, long clientNowMs,
                                                                    List<ConnectionEvidence.Record> seen) {
        List<ConnectionEvidence.Record> stuck = new ArrayList<>();
        for (dev.kmeta.cluster.Node n : manager.fetch().nodes()) {
            Node node = MetadataDriver.kafkaNode(n);
            ConnectionEvidence.Record r = evidence.get(node.idString());
            if (r == null || seen.contains(r) || client.isReady(node, clientNowMs)
                    || client.connectionDelay(node, clientNowMs) != Long.MAX_VALUE) {
                continue; // unknown, already counted, ready, or not connected (closed, or TCP still connecting)
            }
            try {
                client.disconnect(node.idString());
            } catch (IllegalStateException unknownToTheClient) {
                continue;
            }
            stuck.add(r);
        }
        return stuck;
    }
}
