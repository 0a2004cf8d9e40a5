package dev.kmeta.sender.internal;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.internal.EvidenceRecorder;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.metadata.internal.RefreshRequest;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Set;

/**
 * The {@link MetadataDriver}'s requests on the wire: picks the least-loaded node, connects to it or sends it the
 * refresh the manager hands out ({@link MetadataManager#beginRefresh}), holds the one request in flight, and reads
 * its completion - a version mismatch is fatal, a disconnect or {@code request.timeout.ms} a failed request, an
 * answer goes to the driver ({@link Answers}). Whatever the answer's handling throws, a request the client
 * refuses to send, and one it loses ({@link #failIfLost}), turn into a failed request (retried after backoff), so the
 * manager never stays IN_FLIGHT.
 *
 * <p>Confined to the sender thread (the one that polls the client; completions run inside its {@code poll}).
 */
@SuppressKafkaInternalApiUsage("builds Metadata requests and handles their responses with kafka-clients' request "
        + "classes")
final class MetadataRequests {
    /** What the driver does with an answer that came back (inside the client's {@code poll}). */
    interface Answers {
        void answered(RefreshRequest request, MetadataResponse response, ConnectionEvidence.Record record,
                      RefreshEvent event, long nowMs);
    }

    /** The driver's logger, as when this was part of it: log settings and captures name {@code MetadataDriver}. */
    private static final Logger log = LoggerFactory.getLogger(MetadataDriver.class);
    private static final long MAX_POLL_MS = MetadataDriver.MAX_POLL_MS;

    private final MetadataManager manager;
    private final MetadataConfig config;
    private final EvidenceRecorder evidence;
    private final Answers answers;
    private RefreshRequest inFlight;
    /** Where {@link #inFlight} went, and the client's time it was sent at. */
    private Node inFlightNode;
    private long inFlightSentAtClientMs;
    /** The request {@link #failIfLost} found missing from the client at the previous step; null: none. */
    private RefreshRequest missingAtLastStep;
    /** The JFR event of {@link #inFlight} (null while JFR is off), begun when it was sent. */
    private RefreshEvent inFlightEvent;
    /** The last wire request made, and what it was made from ({@link #builderFor}). */
    private MetadataRequest.Builder lastBuilder;
    private Set<String> lastBuilderTopics;
    private boolean lastBuilderAutoCreate;
    /** Sends the client refused in a row: only the first of a run is logged at WARN. */
    private int refusedSends;

    MetadataRequests(MetadataManager manager, MetadataConfig config, EvidenceRecorder evidence, Answers answers) {
        this.manager = manager;
        this.config = config;
        this.evidence = evidence;
        this.answers = answers;
        // With JFR on, the event classes' one-time instrumentation now, not in the first request the first send awaits.
        SenderJfr.load();
    }

    /** True while a request is out and neither answered nor failed. */
    boolean inFlight() {
        return inFlight != null;
    }

    /** A request is due: send it to a ready node, or start connecting; returns how long to poll. */
    long trySend(KafkaClient client, long nowMs, long clientNowMs) {
        return trySend(client, nowMs, clientNowMs, false);
    }

    /**
     * {@link #trySend(KafkaClient, long, long)}; with {@code connectOnly}, gets the connection ready but sends nothing
     * (the start-up request waiting for a first topic, {@link MetadataDriver}).
     */
    long trySend(KafkaClient client, long nowMs, long clientNowMs, boolean connectOnly) {
        Node node = client.leastLoadedNode(clientNowMs).node();
        if (node == null) {
            return config.reconnectBackoffMs();
        }
        ConnectionEvidence.Record record = evidence.record(node.idString(), node.host() + ":" + node.port(),
                node.id() < 0);
        if (!client.isReady(node, clientNowMs)) {
            long delay = client.connectionDelay(node, clientNowMs);
            if (delay == 0) {
                evidence.attempt(record, nowMs);
            }
            if (!client.ready(node, clientNowMs)) {
                return delay == 0 || delay == Long.MAX_VALUE ? MAX_POLL_MS : delay;
            }
        }
        evidence.connected(record, nowMs);
        if (!connectOnly) {
            send(client, node, nowMs, clientNowMs, record);
        }
        return MAX_POLL_MS;
    }

    private void send(KafkaClient client, Node node, long nowMs, long clientNowMs, ConnectionEvidence.Record record) {
        RefreshRequest request = manager.beginRefresh(nowMs);
        if (request == null) {
            return;
        }
        MetadataRequest.Builder builder = builderFor(request);
        inFlight = request;
        inFlightNode = node;
        inFlightSentAtClientMs = clientNowMs;
        inFlightEvent = SenderJfr.startRefresh(config.clientId(), address(node), request.isFull(), request.topics().size());
        try {
            ClientRequest cr = client.newClientRequest(node.idString(), builder, clientNowMs, true,
                    config.requestTimeoutMs(), response -> complete(request, node, record, response));
            client.send(cr, clientNowMs);
            refusedSends = 0;
        } catch (RuntimeException e) {
            refused(request, node, e, nowMs);
        }
    }

    /**
     * The wire request for {@code request}: the last one again when it asks for the very same set of topics (a full
     * request while the subscriptions did not change: the state machine hands out one set object), so that a
     * periodic refresh of 1,000 topics does not build 1,000 request topics each time. A builder is never changed
     * after it is made (kafka-clients' {@code build(version)} only reads it), so reusing it is safe.
     */
    private MetadataRequest.Builder builderFor(RefreshRequest request) {
        if (lastBuilder == null || request.topics() != lastBuilderTopics
                || request.allowAutoTopicCreation() != lastBuilderAutoCreate) {
            lastBuilder = new MetadataRequest.Builder(new ArrayList<>(request.topics()),
                    request.allowAutoTopicCreation());
            lastBuilderTopics = request.topics();
            lastBuilderAutoCreate = request.allowAutoTopicCreation();
        }
        return lastBuilder;
    }

    /**
     * Called at the start of each step, before the step calls the client: fails the request in flight if the client
     * lost it, so that the manager never stays IN_FLIGHT on a completion that will not come. Lost means the client
     * holds nothing in flight to its node at two steps in a row (a poll between them runs the completion of a
     * request the client cancelled, which it queues for its next poll), or twice {@code request.timeout.ms} passed on
     * the client's clock (the client times a request out after one, and another request on the same connection hides
     * a lost one from the first test). The client loses a request when its poll throws: kafka-clients 4.4 closes the
     * node list's connections inside its receive loop when a broker refuses the client's identity (KIP-1242), and a
     * receive from one of them read in the same poll finds no request ("There are no in-flight requests for node
     * -3"); the completions it had queued are gone with the exception (OtherClustersMatrixTest).
     */
    void failIfLost(KafkaClient client, long nowMs, long clientNowMs) {
        RefreshRequest request = inFlight;
        if (request == null) {
            missingAtLastStep = null;
            return;
        }
        boolean missing = !client.hasInFlightRequests(inFlightNode.idString());
        boolean overdue = clientNowMs - inFlightSentAtClientMs >= 2L * config.requestTimeoutMs();
        if (!overdue && (!missing || missingAtLastStep != request)) {
            missingAtLastStep = missing ? request : null;
            return;
        }
        inFlight = null;
        missingAtLastStep = null;
        SenderJfr.finishRefresh(inFlightEvent, "LOST");
        String reason = "the client lost the metadata request to " + address(inFlightNode) + " (" + (overdue
                ? "no completion within twice request.timeout.ms=" + config.requestTimeoutMs() : "its poll failed")
                + ")";
        log.warn("[{}] {}; retrying after backoff", config.clientId(), reason);
        if (manager.inFlight() == request) {
            manager.onFailure(request, reason, nowMs);
        }
    }

    /**
     * The client threw from {@code send} (e.g. a producer's client that is closing): without this the manager would
     * stay IN_FLIGHT for good and never ask again. The request fails like a lost one and is retried after backoff; a
     * callback the client may still run for it is ignored ({@link #complete} checks {@link #inFlight}).
     */
    private void refused(RefreshRequest request, Node node, RuntimeException e, long nowMs) {
        inFlight = null;
        SenderJfr.finishRefresh(inFlightEvent, "NOT_SENT");
        String reason = "the client could not send the metadata request to " + address(node) + ": " + e;
        if (refusedSends++ == 0) {
            log.warn("[{}] {}; retrying after backoff (repeats are logged at DEBUG)", config.clientId(), reason, e);
        } else {
            log.debug("[{}] {} ({} in a row)", config.clientId(), reason, refusedSends);
        }
        if (manager.inFlight() == request) {
            manager.onFailure(request, reason, nowMs);
        }
    }

    /** Runs inside {@code client.poll}, on this thread. Never lets an exception escape with the request open. */
    private void complete(RefreshRequest request, Node node, ConnectionEvidence.Record record,
                          ClientResponse response) {
        if (inFlight != request) {
            return;
        }
        inFlight = null;
        RefreshEvent event = inFlightEvent;
        long nowMs = manager.ticker().milliTime();
        try {
            if (response.versionMismatch() != null) {
                SenderJfr.finishRefresh(event, "VERSION_MISMATCH");
                manager.onFatal(request, response.versionMismatch(), nowMs);
            } else if (response.wasDisconnected()) {
                SenderJfr.finishRefresh(event, response.wasTimedOut() ? "TIMED_OUT" : "DISCONNECTED");
                failed(request, node, record, response, nowMs);
            } else {
                answers.answered(request, (MetadataResponse) response.responseBody(), record, event, nowMs);
            }
        } catch (RuntimeException e) {
            SenderJfr.finishRefresh(event, "UNUSABLE");
            log.warn("[{}] unusable metadata answer from {}: {}", config.clientId(), node, e.toString());
            if (manager.inFlight() == request) {
                manager.onFailure(request, "unusable answer from " + address(node) + ": " + e, nowMs);
            }
        }
    }

    private void failed(RefreshRequest request, Node node, ConnectionEvidence.Record record,
                        ClientResponse response, long nowMs) {
        String reason;
        if (response.wasTimedOut()) {
            reason = "no answer from " + address(node) + " within request.timeout.ms=" + config.requestTimeoutMs();
            evidence.problem(record, ConnectionEvidence.Problem.REQUEST_TIMEOUT, reason, nowMs);
        } else {
            reason = "connection to " + address(node) + " dropped while a request was in flight";
        }
        manager.onFailure(request, reason, nowMs);
    }

    private static String address(Node node) {
        return (node.id() < 0 ? "bootstrap " : "broker " + node.id() + " at ") + node.host() + ":" + node.port();
    }
}
