package dev.kmeta.sender.internal;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.metadata.internal.EvidenceRecorder;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.metadata.internal.RefreshRequest;
import dev.kmeta.metadata.internal.RefreshResponse;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the sender does, over any kafka-clients {@link KafkaClient}: each {@link #step} takes the posted commands
 * ({@link MetadataManager#poll}) and, if a request is due and none is in flight, has {@link MetadataRequests} connect
 * to the least-loaded node or send it one {@code MetadataRequest}; the answer (handed back inside the client's
 * {@code poll}, on the same thread) goes to the manager. It is driven either by kmeta's own thread
 * ({@link SenderLoop}) or by a producer's network loop through {@link NodeProvider#maybeUpdate}.
 *
 * <p>This class holds the decisions - when to send, when an answer replaces the node list, when to rebootstrap - and
 * hands each job to a collaborator: {@link MetadataRequests} (the request on the wire, its failures),
 * {@link DisconnectEvidence} (what a disconnect leaves in the evidence), {@link IdentityRefusals} (KIP-1242),
 * {@link BootstrapAddresses} (the bootstrap nodes and the KIP-909 resolution watch) and {@link LeaderProbe}.
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
 * cluster id and node id sent with ApiVersions ({@link #identityRefused}) - except while a rebootstrap is under way
 * (none of its answers came yet): a refusal then is recorded and counted, not rebootstrapped on again, as each
 * rebootstrap drops the bootstrap connections and would cut the very request that is to end it.
 *
 * <p>With {@code bootstrap.resolve.timeout.ms} (KIP-909) set, a step that finds no bootstrap name resolved for that
 * long since the start (or the last rebootstrap) reports it once: an ERROR line and {@link #bootstrapFailure()}.
 *
 * <p>Confined to the thread that polls the client; {@link #rebootstraps()}, {@link #misroutedConnections()},
 * {@link #bootstrapResolveTimeouts()}, {@link #bootstrapFailure()} and {@link #leaderProbes()} may be read from any
 * thread.
 */
@SuppressKafkaInternalApiUsage("sends Metadata requests on a KafkaClient and reads MetadataResponse: kmeta's wire "
        + "is kafka-clients' own")
public final class MetadataDriver implements NodeProvider.Listener {
    private static final Logger log = LoggerFactory.getLogger(MetadataDriver.class);
    static final long MAX_POLL_MS = 1_000;

    private final MetadataManager manager;
    private final MetadataConfig config;
    private final EvidenceRecorder evidence;
    private final AtomicLong rebootstraps = new AtomicLong();
    private final BootstrapAddresses bootstrap;
    private final MetadataRequests requests;
    private final DisconnectEvidence disconnects;
    private final IdentityRefusals refusals;
    private final LeaderProbe probe;
    private NodeProvider nodes;
    private KafkaClient client;
    /** Ticker ms since a refresh is wanted without an answer (the rebootstrap trigger's clock); -1: not wanted. */
    private long wantingSinceMs = -1;
    /**
     * A rebootstrap sent the client back to {@code bootstrap.servers} and no answer came since. While so, a broker's
     * identity refusal (the leader probe or a request to a broker of the old node list) does not rebootstrap again: the
     * leader probe's refusals, one per broker per reconnect backoff, kept a client rebootstrapping 285 times in 20 s,
     * each cutting the bootstrap request in flight (OtherClustersMatrixTest).
     */
    private boolean rebootstrapUnanswered;
    /** Identity refusals the client reported during its last poll, not handled yet ({@link #handleRefusals}). */
    private int refusalsPending;
    private static final long NO_STEP = Long.MIN_VALUE;
    /** The manager's time of the first step that found the start-up request due ({@link #startupGraceLeftMs}). */
    private long firstStepMs = NO_STEP;
    private boolean startupGraceOver;

    MetadataDriver(MetadataManager manager, MetadataConfig config, RecordingResolver resolver,
                   EvidenceRecorder evidence) {
        this.manager = manager;
        this.config = config;
        this.evidence = evidence;
        this.bootstrap = new BootstrapAddresses(config, resolver, evidence, this::clusterId);
        this.requests = new MetadataRequests(manager, config, evidence, this::answered);
        this.disconnects = new DisconnectEvidence(manager, evidence, resolver, config.clientId());
        this.refusals = new IdentityRefusals(manager, config, evidence);
        this.probe = new LeaderProbe(config.clientId(), evidence);
    }

    /** The node list this driver maintains, for the client's {@code MetadataUpdater} seat. */
    NodeProvider nodeProvider() {
        if (nodes == null) {
            nodes = new NodeProvider(bootstrap.nodes(), this);
        }
        return nodes;
    }

    /**
     * For kmeta's own client: {@code tracker} is its {@code ApiVersions}, so a KIP-1242 refusal is pinned on the
     * connections that had not finished ApiVersions. Without it (a producer's client) those kmeta never saw ready.
     */
    void trackHandshakes(HandshakeTracker tracker) {
        refusals.trackHandshakes(tracker);
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

    /**
     * Times a broker refused the cluster id and node id kmeta sent (KIP-1242), each followed by a rebootstrap unless
     * one is already under way.
     */
    public long misroutedConnections() {
        return refusals.count();
    }

    /** Times {@code bootstrap.resolve.timeout.ms} passed with no bootstrap name resolving (KIP-909). */
    public long bootstrapResolveTimeouts() {
        return bootstrap.resolveTimeouts();
    }

    /**
     * BOOTSTRAP_DNS once {@code bootstrap.resolve.timeout.ms} passed with no bootstrap name resolving, until one
     * resolves; else null.
     */
    public Diagnosis bootstrapFailure() {
        return bootstrap.failure();
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
            long nowMs = nowMs();
            requests.failIfLost(client, nowMs, clientNowMs);
            if (refusalsPending > 0) {
                handleRefusals(nowMs, clientNowMs);
            }
            refusals.stepBegins();
            long waitMs = Math.min(manager.poll(nowMs), bootstrap.check(nowMs));
            long probeMs = manager.isClosed() ? Long.MAX_VALUE
                    : probe.run(client, manager.fetch(), nowMs, clientNowMs);
            if (!requests.inFlight() && waitMs == 0) {
                long graceMs = startupGraceLeftMs(nowMs);
                if (graceMs > 0) {
                    // the connection gets ready meanwhile, so that the first topic's request goes out at once
                    long connectMs = requests.trySend(client, nowMs, clientNowMs, true);
                    return Math.max(0, Math.min(Math.min(graceMs, connectMs), Math.min(probeMs, MAX_POLL_MS)));
                }
                return Math.min(trySend(nowMs, clientNowMs), Math.max(0, probeMs));
            }
            if (!requests.inFlight() && manager.state() == RefreshState.STABLE) {
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

    /**
     * Ms the instance's first request still waits for a first topic: while nothing is subscribed and nobody waits,
     * at most {@code retry.backoff.ms} from the first step. A producer that sends right after it was created then
     * asks for its topic in the first request, as a stock producer does (its client asks when its connection is
     * ready), instead of a topicless start-up request followed by one for the topic (issue 28: one extra Metadata
     * request per new producer). 0 once a request went out, a topic is subscribed or a thread waits.
     */
    private long startupGraceLeftMs(long nowMs) {
        if (startupGraceOver) {
            return 0;
        }
        if (manager.counters().requestsSent() > 0 || !manager.subscribedTopics().isEmpty()
                || manager.counters().waitersNow() > 0) {
            startupGraceOver = true;
            return 0;
        }
        if (firstStepMs == NO_STEP) {
            firstStepMs = nowMs;
        }
        long leftMs = firstStepMs + config.retryBackoffMs() - nowMs;
        if (leftMs <= 0) {
            startupGraceOver = true;
        }
        return Math.max(0, leftMs);
    }

    /** A request is due: the rebootstrap clock starts if it was not running, and the request goes out. */
    private long trySend(long nowMs, long clientNowMs) {
        if (wantingSinceMs < 0) {
            wantingSinceMs = nowMs;
        }
        return requests.trySend(client, nowMs, clientNowMs);
    }

    /** An answer came back (inside {@code client.poll}); what this throws fails the request (MetadataRequests). */
    private void answered(RefreshRequest request, MetadataResponse response, ConnectionEvidence.Record record,
                          RefreshEvent event, long nowMs) {
        if (response.data().errorCode() == Errors.REBOOTSTRAP_REQUIRED.code()) {
            SenderJfr.finishRefresh(event, "REBOOTSTRAP_REQUIRED");
            manager.onFailure(request, "the broker answered REBOOTSTRAP_REQUIRED", nowMs);
            rebootstrap("a Metadata answer said REBOOTSTRAP_REQUIRED");
            return;
        }
        RefreshResponse translated = ResponseTranslator.translate(response, manager.fetch());
        SenderJfr.finishRefresh(event, "ANSWERED");
        // The evidence first, then the snapshot: a thread that sees the snapshot this answer brings also sees that
        // this address answered (the manager publishes the snapshot with a volatile store and wakes its waiters).
        evidence.answer(record, nowMs);
        brokersAtTheAnsweringAddress(response, record, nowMs);
        manager.onResponse(request, translated, nowMs);
        rebootstrapUnanswered = false;
        if (manager.inFlight() == null && manager.fetch().nodes().size() > 0) {
            wantingSinceMs = -1;
            nodes.setNodes(kafkaNodes());
        }
    }

    /**
     * A broker the answer advertises at the very address that just answered (a bootstrap address that is a broker's
     * own, the usual single-broker or one-address setup) is proven reachable now: recorded as connected, so that
     * neither the {@link LeaderProbe} nor a send waiting for the probe's verdict waits for a second connection to it.
     */
    private void brokersAtTheAnsweringAddress(MetadataResponse response, ConnectionEvidence.Record answered,
                                             long nowMs) {
        for (MetadataResponseData.MetadataResponseBroker b : response.data().brokers()) {
            if (b.nodeId() >= 0 && answered.isAt(b.host(), b.port())) {
                ConnectionEvidence.Record broker = evidence.broker(b.nodeId());
                if (broker == null || !broker.isAt(b.host(), b.port()) || !broker.everConnected()
                        || broker.failingNow()) {
                    evidence.connected(evidence.record(Integer.toString(b.nodeId()), answered.address(), false),
                            nowMs);
                }
            }
        }
    }

    private List<Node> kafkaNodes() {
        List<Node> out = new ArrayList<>();
        for (dev.kmeta.cluster.Node n : manager.fetch().nodes()) {
            out.add(kafkaNode(n));
        }
        return out;
    }

    /** kmeta's broker as a kafka-clients {@code Node}, for the client's methods. */
    static Node kafkaNode(dev.kmeta.cluster.Node n) {
        return new Node(n.id(), n.host(), n.port(), n.rack());
    }

    private long nowMs() {
        return manager.ticker().milliTime();
    }

    // ------------------------------------------------------------- NodeProvider.Listener (called inside poll)

    /**
     * A connection closed: an authentication failure is fatal to every waiter; any other disconnect goes into the
     * evidence ({@link DisconnectEvidence}), makes a learned broker a KIP-1242 suspect if its handshake had not
     * finished ({@link IdentityRefusals}), puts a leader under the {@link LeaderProbe}'s watch, and tells the manager.
     */
    @Override
    public void onDisconnect(String nodeId, AuthenticationException authFailure) {
        long nowMs = nowMs();
        ConnectionEvidence.Record record = evidence.get(nodeId);
        if (authFailure != null) {
            AuthenticationException failure = AuthFailures.notSasl(authFailure, config.securityProtocol());
            if (record != null) {
                disconnects.authenticationFailed(record, failure, authFailure, nowMs);
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
            disconnects.disconnected(record, nowMs);
        }
        if (learned != null) {
            learnedBrokerDisconnected(nodeId, id, learned, record);
        }
        if (id >= 0) {
            manager.onNodeDisconnected(id, nowMs);
        }
    }

    private void learnedBrokerDisconnected(String nodeId, int id, dev.kmeta.cluster.Node learned,
                                           ConnectionEvidence.Record record) {
        if (record != null) {
            refusals.learnedBrokerDisconnected(nodeId, record);
        }
        if (!manager.fetch().partitionsOnNode(id).isEmpty()) {
            probe.watch(kafkaNode(learned));
        }
        if (record != null) {
            disconnects.warnIfNeverReachable(record);
        }
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
        return wantingSinceMs >= 0 && nowMs() - wantingSinceMs >= triggerMs;
    }

    /** The trigger: no metadata for {@code metadata.recovery.rebootstrap.trigger.ms}. */
    @Override
    public void rebootstrap() {
        rebootstrap("no metadata for metadata.recovery.rebootstrap.trigger.ms="
                + config.metadataRecoveryRebootstrapTriggerMs());
    }

    /**
     * A broker refused the cluster id and node id kmeta sent (KIP-1242): {@link IdentityRefusals} marks the suspects
     * {@code MISROUTED} and counts it, then the instance rebootstraps.
     */
    @Override
    public void identityRefused(long clientNowMs) {
        refusalsPending++; // inside the client's poll: handled by the next step (handleRefusals)
    }

    /**
     * Whether the client's poll threw because a KIP-1242 refusal in that poll closed connections inside its receive
     * loop: kafka-clients 4.4 does so itself, and the receive it read next from a closed connection finds no request
     * ("There are no in-flight requests for node -1"). Known and recovered ({@link MetadataRequests#failIfLost}); any
     * other exception, or this one without a refusal in the poll, is not.
     */
    boolean pollThrewAfterRefusal(RuntimeException e) {
        String message = e.getMessage();
        return refusalsPending > 0 && e instanceof IllegalStateException && message != null
                && message.startsWith("There are no in-flight requests for node");
    }

    /**
     * The refusals of the last poll, outside it: closing connections inside the client's receive loop (the refused
     * ones stuck in ApiVersions, the bootstrap's at a rebootstrap) cleared in-flight requests whose answers that loop
     * was about to read, and the poll threw ("There are no in-flight requests for node 1") before it completed the
     * Metadata request in flight, which then never ended (OtherClustersMatrixTest).
     */
    private void handleRefusals(long nowMs, long clientNowMs) {
        int refused = refusalsPending;
        refusalsPending = 0;
        String why = refusals.refused(client, nowMs, clientNowMs, refused);
        if (rebootstrapUnanswered) {
            log.debug("[{}] {}; a rebootstrap is already under way", config.clientId(), why);
            return;
        }
        rebootstrap(why);
    }

    private void rebootstrap(String why) {
        rebootstraps.incrementAndGet();
        rebootstrapUnanswered = true;
        SenderJfr.recordRebootstrap(config.clientId(), String.join(",", config.bootstrapServers()));
        wantingSinceMs = nowMs();
        nodes.setNodes(bootstrap.nodes());
        bootstrap.resolveAgain(client, wantingSinceMs);
        log.info("[{}] rebootstrap ({}); going back to {}", config.clientId(), why, config.bootstrapServers());
        manager.requestUpdate();
    }

    @Override
    public String clusterId() {
        return manager.fetch().clusterId();
    }
}
