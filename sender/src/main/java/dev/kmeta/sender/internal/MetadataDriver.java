package dev.kmeta.sender.internal;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.internal.EvidenceRecorder;
import dev.kmeta.metadata.internal.Failures;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.metadata.internal.RefreshRequest;
import dev.kmeta.metadata.internal.RefreshResponse;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.LeastLoadedNode;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the sender does, over any kafka-clients {@link KafkaClient}: each {@link #step} takes the posted commands
 * ({@link MetadataManager#poll}) and, if a request is due and none is in flight, picks the least-loaded node and
 * connects or sends one {@code MetadataRequest}; the request's completion callback (run inside the client's
 * {@code poll}, on the same thread) hands the answer or the failure to the manager. It is driven either by kmeta's
 * own thread ({@link SenderLoop}) or by a producer's network loop through {@link NodeProvider#maybeUpdate}.
 *
 * <p>Each step also runs the {@link LeaderProbe}: the leaders of the snapshot's partitions that never became ready on
 * a connection (or fail now) get one connection attempt per reconnect backoff, so that the evidence knows whether
 * their advertised addresses work. Every disconnect the client reports - of kmeta's connections or, in driven mode,
 * of the producer's own - is recorded for the broker it concerns.
 *
 * <p>It never dies of a bad answer: whatever a response callback throws turns into a failed request (retried after
 * backoff), and so does a request the client refuses to send (its {@code send} throws: logged at WARN once for a run
 * of such refusals, then at DEBUG until a send succeeds); an unexpected error in a step is logged and the next step
 * goes on.
 *
 * <p>One clock: every decision and every evidence time is on the manager's {@code Ticker}; the client's own time
 * ({@code now} of its {@code poll}, passed to {@link #step}) goes back only to the client's methods. kmeta's own
 * client runs on the same ticker ({@link KafkaTime}); a producer's client in driven mode on the producer's clock.
 *
 * <p>Rebootstraps have three sources: the trigger ({@code metadata.recovery.rebootstrap.trigger.ms}, through the
 * client), a Metadata answer's {@code REBOOTSTRAP_REQUIRED}, and (kafka-clients 4.4, KIP-1242) a broker refusing the
 * cluster id and node id sent with ApiVersions: {@link #identityRefused} marks the learned brokers whose connection
 * was being set up in that moment {@code MISROUTED} in the evidence and counts the refusal.
 *
 * <p>With {@code bootstrap.resolve.timeout.ms} (KIP-909) set, a step that finds no bootstrap name resolved for that
 * long since the start (or the last rebootstrap) reports it once: an ERROR line and {@link #bootstrapFailure()}.
 *
 * <p>Confined to the thread that polls the client; {@link #rebootstraps()}, {@link #misroutedConnections()},
 * {@link #bootstrapResolveTimeouts()}, {@link #bootstrapFailure()} and {@link #leaderProbes()} may be read from any
 * thread.
 */
public final class MetadataDriver implements NodeProvider.Listener {
    private static final Logger log = LoggerFactory.getLogger(MetadataDriver.class);
    private static final long MAX_POLL_MS = 1_000;

    private final MetadataManager manager;
    private final MetadataConfig config;
    private final EvidenceRecorder evidence;
    private final RecordingResolver resolver;
    private final List<Node> bootstrapNodes;
    private final AtomicLong rebootstraps = new AtomicLong();
    private final AtomicLong misroutedConnections = new AtomicLong();
    /**
     * Learned brokers whose connection the client closed since the last step before it finished ApiVersions: the
     * ones a KIP-1242 refusal may have come from.
     */
    private final List<ConnectionEvidence.Record> closedBeforeReady = new ArrayList<>();
    /** Addresses already reported at WARN as misrouted ("broker id at host:port", or "unknown"). */
    private final Set<String> reportedMisrouted = new HashSet<>();
    private final BootstrapResolutionWatch resolutionWatch;
    private final LeaderProbe probe;
    /** Learned brokers already reported at WARN as never reachable at their address ("id@host:port"). */
    private final Set<String> reportedUnreachable = new HashSet<>();
    private NodeProvider nodes;
    private KafkaClient client;
    /** kmeta's own client's versions, telling which closed connections never finished ApiVersions; else null. */
    private HandshakeTracker handshakes;

    private RefreshRequest inFlight;
    /** The JFR event of {@link #inFlight}, begun when it was sent. */
    private RefreshEvent inFlightEvent;
    /** The last wire request made, and what it was made from ({@link #builderFor}). */
    private MetadataRequest.Builder lastBuilder;
    private Set<String> lastBuilderTopics;
    private boolean lastBuilderAutoCreate;
    private long wantingSinceMs = -1;
    /** Sends the client refused in a row: only the first of a run is logged at WARN. */
    private int refusedSends;

    MetadataDriver(MetadataManager manager, MetadataConfig config, RecordingResolver resolver,
                   EvidenceRecorder evidence) {
        // With JFR on, the event classes' one-time instrumentation now, not in the first request the first send awaits.
        RefreshEvent.load();
        this.manager = manager;
        this.config = config;
        this.evidence = evidence;
        this.resolver = resolver;
        this.bootstrapNodes = Transport.bootstrapNodes(config);
        this.probe = new LeaderProbe(config.clientId(), evidence);
        this.resolutionWatch = new BootstrapResolutionWatch(config, resolver, bootstrapNodes,
                this::bootstrapDiagnosis);
        if (config.metadataClusterCheckEnable() && !KafkaClientsCompat.sendsClusterIdentity()) {
            log.info("[{}] metadata.cluster.check.enable: kafka-clients {} does not send the client's cluster id "
                    + "and node id (KIP-1242 needs 4.4); a connection to the wrong cluster shows only as a cluster id "
                    + "change in a Metadata answer", config.clientId(), KafkaClientsCompat.version());
        }
    }

    /** The node list this driver maintains, for the client's {@code MetadataUpdater} seat. */
    NodeProvider nodeProvider() {
        if (nodes == null) {
            nodes = new NodeProvider(bootstrapNodes, this);
        }
        return nodes;
    }

    /**
     * For kmeta's own client: {@code tracker} is its {@code ApiVersions}, so a KIP-1242 refusal is pinned on the
     * connections that had not finished ApiVersions. Without it (a producer's client) those kmeta never saw ready.
     */
    void trackHandshakes(HandshakeTracker tracker) {
        this.handshakes = tracker;
    }

    /** The client to send on; set once, before the first {@link #step}. Wakes come through its wakeup(). */
    void attach(KafkaClient kafkaClient) {
        if (client != null) {
            throw new IllegalStateException("already attached to a client");
        }
        this.client = kafkaClient;
        manager.setWaker(kafkaClient::wakeup);
    }

    /** How many times the loop went back to the bootstrap addresses. */
    public long rebootstraps() {
        return rebootstraps.get();
    }

    /** Times a broker refused the cluster id and node id kmeta sent (KIP-1242), each followed by a rebootstrap. */
    public long misroutedConnections() {
        return misroutedConnections.get();
    }

    /** Times {@code bootstrap.resolve.timeout.ms} passed with no bootstrap name resolving (KIP-909). */
    public long bootstrapResolveTimeouts() {
        return resolutionWatch.timeouts();
    }

    /**
     * BOOTSTRAP_DNS once {@code bootstrap.resolve.timeout.ms} passed with no bootstrap name resolving, until one
     * resolves; else null.
     */
    public Diagnosis bootstrapFailure() {
        return resolutionWatch.failure();
    }

    /** Connection attempts made to probe leaders ({@link LeaderProbe}). */
    public long leaderProbes() {
        return probe.probes();
    }

    /**
     * One step: commands, expiry, and a request if one is due. Returns how long the caller may poll the client
     * before the next step is needed. {@code clientNowMs} is the client's time, for the calls made on it.
     */
    @Override
    public long step(long clientNowMs) {
        if (client == null) {
            return MAX_POLL_MS;
        }
        try {
            long nowMs = manager.ticker().milliTime();
            closedBeforeReady.clear();
            long waitMs = Math.min(manager.poll(nowMs), resolutionWatch.check(nowMs));
            long probeMs = manager.isClosed() ? Long.MAX_VALUE
                    : probe.run(client, manager.fetch(), nowMs, clientNowMs);
            if (inFlight == null && waitMs == 0) {
                return Math.min(trySend(nowMs, clientNowMs), Math.max(0, probeMs));
            }
            if (inFlight == null && manager.state() == RefreshState.STABLE) {
                // Nothing wanted any more. A request waiting out its backoff after a failure is still wanted: the
                // rebootstrap clock runs on until an answer (answered()) or the rebootstrap itself.
                wantingSinceMs = -1;
            }
            return Math.max(0, Math.min(Math.min(waitMs, probeMs), MAX_POLL_MS));
        } catch (RuntimeException e) {
            log.error("[{}] unexpected error in the metadata sender; going on", config.clientId(), e);
            return config.retryBackoffMs();
        }
    }

    /** A request is due: send it to a ready node, or start connecting; returns how long to poll. */
    private long trySend(long nowMs, long clientNowMs) {
        if (wantingSinceMs < 0) {
            wantingSinceMs = nowMs;
        }
        LeastLoadedNode least = client.leastLoadedNode(clientNowMs);
        Node node = least.node();
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
        send(node, nowMs, clientNowMs, record);
        return MAX_POLL_MS;
    }

    private void send(Node node, long nowMs, long clientNowMs, ConnectionEvidence.Record record) {
        RefreshRequest request = manager.beginRefresh(nowMs);
        if (request == null) {
            return;
        }
        MetadataRequest.Builder builder = builderFor(request);
        inFlight = request;
        inFlightEvent = beginEvent(request, node);
        try {
            ClientRequest cr = client.newClientRequest(node.idString(), builder, clientNowMs, true,
                    config.requestTimeoutMs(), response -> complete(request, node, record, response));
            client.send(cr, clientNowMs);
            refusedSends = 0;
        } catch (RuntimeException e) {
            refused(request, node, e, nowMs);
        }
    }

    /** The JFR event (null while JFR is off) of a request about to go to {@code node}, finished by its outcome. */
    private RefreshEvent beginEvent(RefreshRequest request, Node node) {
        return RefreshEvent.start(config.clientId(), address(node), request.isFull(), request.topics().size());
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
     * The client threw from {@code send} (e.g. a producer's client that is closing): without this the manager would
     * stay IN_FLIGHT for good and never ask again. The request fails like a lost one and is retried after backoff; a
     * callback the client may still run for it is ignored ({@link #complete} checks {@link #inFlight}).
     */
    private void refused(RefreshRequest request, Node node, RuntimeException e, long nowMs) {
        inFlight = null;
        RefreshEvent.finish(inFlightEvent, "NOT_SENT");
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
                RefreshEvent.finish(event, "VERSION_MISMATCH");
                manager.onFatal(request, response.versionMismatch(), nowMs);
            } else if (response.wasDisconnected()) {
                RefreshEvent.finish(event, response.wasTimedOut() ? "TIMED_OUT" : "DISCONNECTED");
                failed(request, node, record, response, nowMs);
            } else {
                answered(request, (MetadataResponse) response.responseBody(), record, event, nowMs);
            }
        } catch (RuntimeException e) {
            RefreshEvent.finish(event, "UNUSABLE");
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

    private void answered(RefreshRequest request, MetadataResponse response, ConnectionEvidence.Record record,
                          RefreshEvent event, long nowMs) {
        if (response.data().errorCode() == Errors.REBOOTSTRAP_REQUIRED.code()) {
            RefreshEvent.finish(event, "REBOOTSTRAP_REQUIRED");
            manager.onFailure(request, "the broker answered REBOOTSTRAP_REQUIRED", nowMs);
            rebootstrap("a Metadata answer said REBOOTSTRAP_REQUIRED");
            return;
        }
        RefreshResponse translated = ResponseTranslator.translate(response, manager.fetch());
        RefreshEvent.finish(event, "ANSWERED");
        // The evidence first, then the snapshot: a thread that sees the snapshot this answer brings also sees that
        // this address answered (the manager publishes the snapshot with a volatile store and wakes its waiters).
        evidence.answer(record, nowMs);
        manager.onResponse(request, translated, nowMs);
        if (manager.inFlight() == null && manager.fetch().nodes().size() > 0) {
            wantingSinceMs = -1;
            nodes.setNodes(kafkaNodes());
        }
    }

    private List<Node> kafkaNodes() {
        List<Node> nodes = new ArrayList<>();
        for (dev.kmeta.cluster.Node n : manager.fetch().nodes()) {
            nodes.add(new Node(n.id(), n.host(), n.port(), n.rack()));
        }
        return nodes;
    }

    private static String address(Node node) {
        return (node.id() < 0 ? "bootstrap " : "broker " + node.id() + " at ") + node.host() + ":" + node.port();
    }

    // ------------------------------------------------------------- NodeProvider.Listener (called inside poll)

    @Override
    public void onDisconnect(String nodeId, AuthenticationException authFailure) {
        long nowMs = manager.ticker().milliTime();
        ConnectionEvidence.Record record = evidence.get(nodeId);
        if (authFailure != null) {
            AuthenticationException failure = AuthFailures.notSasl(authFailure, config.securityProtocol());
            if (record != null) {
                ConnectionEvidence.Problem kind = failure instanceof SslAuthenticationException
                        ? ConnectionEvidence.Problem.TLS_HANDSHAKE : ConnectionEvidence.Problem.AUTHENTICATION;
                evidence.problem(record, kind, failure != authFailure ? failure.getMessage()
                        : AuthFailures.rootMessage(failure), nowMs);
            }
            manager.onFatal(null, failure, nowMs);
            return;
        }
        int id = parseId(nodeId);
        dev.kmeta.cluster.Node learned = id >= 0 ? manager.fetch().node(id) : null;
        if (record == null && learned != null) {
            // A learned broker kmeta never used itself: in driven mode, the producer's connection to a leader.
            record = evidence.record(nodeId, learned.address(), false);
        }
        if (record != null) {
            recordProblem(record, nowMs);
            if (learned != null && (handshakes != null ? handshakes.closedBeforeVersions(nodeId)
                    : record.lastProblem() == ConnectionEvidence.Problem.CONNECT_FAILED)) {
                closedBeforeReady.add(record);
            }
        }
        if (learned != null) {
            if (!manager.fetch().partitionsOnNode(id).isEmpty()) {
                probe.watch(new Node(id, learned.host(), learned.port(), learned.rack()));
            }
            if (record != null) {
                warnIfNeverReachable(record);
            }
        }
        if (id >= 0) {
            manager.onNodeDisconnected(id, nowMs);
        }
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

    private static int parseId(String nodeId) {
        try {
            return Integer.parseInt(nodeId);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public boolean needsRebootstrap(long triggerMs) {
        return wantingSinceMs >= 0 && manager.ticker().milliTime() - wantingSinceMs >= triggerMs;
    }

    /** The trigger: no metadata for {@code metadata.recovery.rebootstrap.trigger.ms}. */
    @Override
    public void rebootstrap() {
        rebootstrap("no metadata for metadata.recovery.rebootstrap.trigger.ms="
                + config.metadataRecoveryRebootstrapTriggerMs());
    }

    /**
     * The refusing connection is one the client closed before it finished ApiVersions (when its node is in the
     * node list), or one still waiting in ApiVersions (a learned broker probed or used while the node list is the
     * bootstrap's: the client leaves that one open, stuck, so it is closed here). kafka-clients does not say which
     * node refused; a broker marked here by mistake (its connection was being set up in the same moment) is cleared
     * at its next connection.
     */
    @Override
    public void identityRefused(long clientNowMs) {
        long nowMs = manager.ticker().milliTime();
        misroutedConnections.incrementAndGet();
        String clusterId = clusterId();
        List<ConnectionEvidence.Record> refused = new ArrayList<>(closedBeforeReady);
        closedBeforeReady.clear();
        refused.addAll(closeStuckInApiVersions(clientNowMs, refused));
        List<String> suspects = new ArrayList<>();
        for (ConnectionEvidence.Record r : refused) {
            evidence.problem(r, ConnectionEvidence.Problem.MISROUTED, "the broker there refused cluster id "
                    + clusterId + " and node id " + r.nodeId() + " (ApiVersions answered REBOOTSTRAP_REQUIRED, "
                    + "KIP-1242)", nowMs);
            suspects.add("broker " + r.nodeId() + " at " + r.address());
        }
        manager.recordConnectionProblem(evidence.summary());
        String who = suspects.isEmpty() ? "a broker" : String.join(" or ", suspects);
        boolean first = reportedMisrouted.addAll(suspects.isEmpty() ? List.of("unknown") : suspects);
        String line = who + " refused the cluster id " + clusterId + " and node id kmeta sent (REBOOTSTRAP_REQUIRED "
                + "to ApiVersions, KIP-1242): the address leads to another broker or cluster";
        if (first) {
            log.warn("[{}] {}; check the DNS names, load balancers and advertised.listeners of the brokers "
                    + "(repeats are logged at DEBUG)", config.clientId(), line);
        } else {
            log.debug("[{}] {}", config.clientId(), line);
        }
        rebootstrap(line);
    }

    /** Learned brokers whose connection is open but not ready (in ApiVersions), not yet in {@code seen}: closed. */
    private List<ConnectionEvidence.Record> closeStuckInApiVersions(long clientNowMs,
                                                                    List<ConnectionEvidence.Record> seen) {
        List<ConnectionEvidence.Record> stuck = new ArrayList<>();
        for (dev.kmeta.cluster.Node n : manager.fetch().nodes()) {
            Node node = new Node(n.id(), n.host(), n.port(), n.rack());
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

    private void rebootstrap(String why) {
        rebootstraps.incrementAndGet();
        RebootstrapEvent.record(config.clientId(), String.join(",", config.bootstrapServers()));
        wantingSinceMs = manager.ticker().milliTime();
        nodes.setNodes(List.copyOf(bootstrapNodes));
        dropBootstrapConnections();
        resolutionWatch.restart(wantingSinceMs);
        log.info("[{}] rebootstrap ({}); going back to {}", config.clientId(), why, config.bootstrapServers());
        manager.requestUpdate();
    }

    /** The instance's BOOTSTRAP_DNS diagnosis, for the resolution watch: no wait, the bound as the budget. */
    private Diagnosis bootstrapDiagnosis(String seen) {
        List<String> lines = new ArrayList<>();
        for (ConnectionEvidence.Record r : evidence.records()) {
            lines.add(r.toString());
        }
        return Failures.make().diagnosis(Diagnosis.Cause.BOOTSTRAP_DNS, null, -1,
                config.bootstrapResolveTimeoutMs(), seen, "check the host names in bootstrap.servers and this "
                        + "host's DNS; kmeta keeps resolving them and goes on when one resolves", lines, -1,
                clusterId(), null);
    }

    /**
     * Closes the connections to bootstrap addresses that are still open from the first answer, so the next attempt
     * resolves the bootstrap names again (the address behind a name may have moved). A request in flight on one
     * comes back as disconnected and is retried.
     */
    private void dropBootstrapConnections() {
        for (Node n : bootstrapNodes) {
            ConnectionEvidence.Record r = evidence.get(n.idString());
            if (r != null && r.attempts() > 0) {
                try {
                    client.disconnect(n.idString());
                } catch (IllegalStateException unknownToTheClient) {
                    // never connected: nothing to drop
                }
            }
        }
    }

    @Override
    public String clusterId() {
        return manager.fetch().clusterId();
    }
}
