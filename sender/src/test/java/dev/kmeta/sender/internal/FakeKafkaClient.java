package dev.kmeta.sender.internal;

import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.clients.LeastLoadedNode;
import org.apache.kafka.clients.MetadataUpdater;
import org.apache.kafka.clients.RequestCompletionHandler;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.utils.Time;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A fake kafka-clients {@link KafkaClient} for {@link MetadataDriver} unit tests, on fake time: it does, in the same
 * order, the part of {@code NetworkClient} the driver relies on. Nodes are the updater's {@code fetchNodes()}; a
 * connection completes 1 ms after {@code ready()} starts it; one request at a time. Each request gets the answer
 * {@link #answers} gives for its node, 1 ms later; or, when that is null, none: the node drops the connection 1 ms
 * later if {@link #drops} says so (the request completes as disconnected), else at {@code request.timeout.ms} the
 * client closes it (disconnected and timed out). Either way the updater hears {@code handleServerDisconnect} first. Each {@link #poll} then asks the updater {@code needsRebootstrap} (strategy
 * REBOOTSTRAP), closes every {@code fetchNodes()} connection and calls {@code rebootstrap} if so, and only then runs
 * the completion callbacks. {@link #send} throws whatever {@link #refuses} gives for the node. Methods the driver does
 * not call throw. Connections to the nodes {@link #refusesConnections} names fail, and are retried after a reconnect
 * backoff.
 *
 * <p>Not thread-safe: the test thread is the sender thread.
 */
final class FakeKafkaClient implements KafkaClient {
    /** Nanoseconds of the one fake clock, read by the manager's {@code Ticker} and by {@link #time}. */
    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final Time time = new FakeTime();
    /** Node id to answer; null: the node accepts the connection but never answers. */
    Function<String, MetadataResponse> answers = id -> null;
    /** Node ids that close the connection when a request they do not answer arrives (rather than stay silent). */
    Predicate<String> drops = id -> false;
    /**
     * Node ids whose connections are refused: a connection {@code ready()} starts fails 1 ms later (the updater hears
     * {@code handleServerDisconnect}), and the next may start {@link #reconnectBackoffMs} after that attempt began.
     */
    Predicate<String> refusesConnections = id -> false;
    /** The reconnect backoff after a refused connection. */
    long reconnectBackoffMs = 50;
    /** Connections started ({@code ready()} on a node neither connected nor connecting), by node id. */
    final Map<String, Integer> connectionsStarted = new HashMap<>();
    /** Node id to what {@link #send} throws instead of sending; null: it sends. */
    Function<String, RuntimeException> refuses = id -> null;
    /** Fake times ({@link #nowMs()}) of every {@link #send} call, refused or not. */
    final List<Long> sendCallsAtMs = new ArrayList<>();
    /** Node ids each request was sent to, in order. */
    final List<String> sentTo = new ArrayList<>();
    /** Requests that got no answer: timed out or dropped by the node. */
    int unanswered;

    private final long rebootstrapTriggerMs;
    private MetadataUpdater updater;
    private final Set<String> connecting = new HashSet<>();
    private final Set<String> connected = new HashSet<>();
    private final Map<String, Long> attemptStartedMs = new HashMap<>();
    private final Set<String> refused = new HashSet<>();
    private InFlight inFlight;
    private int correlationId;

    private static final class InFlight {
        final ClientRequest request;
        final MetadataResponse answer;
        final boolean peerDrops;
        final long completeAtMs;
        boolean dropped;

        InFlight(ClientRequest request, MetadataResponse answer, boolean peerDrops, long completeAtMs) {
            this.request = request;
            this.answer = answer;
            this.peerDrops = peerDrops;
            this.completeAtMs = completeAtMs;
        }
    }

    FakeKafkaClient(long rebootstrapTriggerMs) {
        this.rebootstrapTriggerMs = rebootstrapTriggerMs;
    }

    /** The updater seat, as {@code NetworkClient}'s constructor takes it. */
    void updater(MetadataUpdater metadataUpdater) {
        this.updater = metadataUpdater;
    }

    long nowMs() {
        return time.milliseconds();
    }

    @Override
    public LeastLoadedNode leastLoadedNode(long now) {
        List<Node> nodes = updater.fetchNodes();
        for (Node n : nodes) {
            if (connected.contains(n.idString())) {
                return new LeastLoadedNode(n, true);
            }
        }
        return new LeastLoadedNode(nodes.get(0), true);
    }

    @Override
    public boolean isReady(Node node, long now) {
        return connected.contains(node.idString()) && inFlight == null;
    }

    @Override
    public boolean ready(Node node, long now) {
        String id = node.idString();
        if (!connected.contains(id) && !connecting.contains(id) && connectionDelay(node, now) == 0) {
            connecting.add(id);
            connectionsStarted.merge(id, 1, Integer::sum);
            attemptStartedMs.put(id, nowMs());
            refused.remove(id);
        }
        return isReady(node, now);
    }

    @Override
    public long connectionDelay(Node node, long now) {
        String id = node.idString();
        if (connected.contains(id) || connecting.contains(id)) {
            return Long.MAX_VALUE;
        }
        return refused.contains(id) ? Math.max(0, attemptStartedMs.get(id) + reconnectBackoffMs - nowMs()) : 0;
    }

    @Override
    public ClientRequest newClientRequest(String nodeId, AbstractRequest.Builder<?> requestBuilder,
                                          long createdTimeMs, boolean expectResponse, int requestTimeoutMs,
                                          RequestCompletionHandler callback) {
        return new ClientRequest(nodeId, requestBuilder, ++correlationId, "fake", createdTimeMs, expectResponse,
                requestTimeoutMs, callback);
    }

    @Override
    public void send(ClientRequest request, long now) {
        sendCallsAtMs.add(nowMs());
        RuntimeException refusal = refuses.apply(request.destination());
        if (refusal != null) {
            throw refusal;
        }
        if (inFlight != null || !connected.contains(request.destination())) {
            throw new IllegalStateException("Attempt to send a request to node " + request.destination()
                    + " which is not ready.");
        }
        sentTo.add(request.destination());
        MetadataResponse answer = answers.apply(request.destination());
        boolean peerDrops = answer == null && drops.test(request.destination());
        inFlight = new InFlight(request, answer, peerDrops,
                answer != null || peerDrops ? now + 1 : request.createdTimeMs() + request.requestTimeoutMs());
    }

    @Override
    public List<ClientResponse> poll(long timeout, long now) {
        long untilMs = now + Math.max(0, timeout);
        if (!connecting.isEmpty()) {
            untilMs = Math.min(untilMs, now + 1);
        }
        if (inFlight != null) {
            untilMs = Math.min(untilMs, Math.max(now, inFlight.completeAtMs));
        }
        nanos.addAndGet(Math.max(0, untilMs - now) * 1_000_000L);
        long nowMs = nowMs();
        List<String> failedConnects = new ArrayList<>();
        for (String id : connecting) {
            if (refusesConnections.test(id)) {
                failedConnects.add(id);
            } else {
                connected.add(id);
            }
        }
        connecting.clear();
        for (String id : failedConnects) {
            refused.add(id);
            updater.handleServerDisconnect(nowMs, id, Optional.empty());
        }
        List<ClientResponse> done = new ArrayList<>();
        if (inFlight != null && (inFlight.dropped || nowMs >= inFlight.completeAtMs)) {
            InFlight f = inFlight;
            inFlight = null;
            if (f.dropped) {
                done.add(response(f, nowMs, true, false, null));
            } else if (f.answer != null) {
                done.add(response(f, nowMs, false, false, f.answer));
            } else {
                unanswered++;
                closeConnection(f.request.destination(), nowMs);
                done.add(response(f, nowMs, true, !f.peerDrops, null));
            }
        }
        if (updater.needsRebootstrap(nowMs, rebootstrapTriggerMs)) {
            for (Node n : updater.fetchNodes()) {
                disconnect(n.idString());
            }
            updater.rebootstrap(nowMs);
        }
        for (ClientResponse r : done) {
            r.onComplete();
        }
        return done;
    }

    private static ClientResponse response(InFlight f, long nowMs, boolean disconnected, boolean timedOut,
                                           MetadataResponse body) {
        ClientRequest r = f.request;
        return new ClientResponse(r.makeHeader((short) 13), r.callback(), r.destination(), r.createdTimeMs(), nowMs,
                disconnected, timedOut, null, null, body);
    }

    private void closeConnection(String nodeId, long nowMs) {
        if (connected.remove(nodeId) | connecting.remove(nodeId)) {
            updater.handleServerDisconnect(nowMs, nodeId, Optional.empty());
        }
    }

    /** Closes the connection; a request in flight on it completes as disconnected on the next poll. */
    @Override
    public void disconnect(String nodeId) {
        closeConnection(nodeId, nowMs());
        if (inFlight != null && inFlight.request.destination().equals(nodeId)) {
            inFlight.dropped = true;
        }
    }

    @Override
    public void wakeup() {
        // one thread: nothing to wake
    }

    // ------------------------------------------------------------------ not used by the driver

    @Override
    public long pollDelayMs(Node node, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean connectionFailed(Node node) {
        throw new UnsupportedOperationException();
    }

    @Override
    public AuthenticationException authenticationException(Node node) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close(String nodeId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int inFlightRequestCount() {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean hasInFlightRequests() {
        throw new UnsupportedOperationException();
    }

    @Override
    public int inFlightRequestCount(String nodeId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean hasInFlightRequests(String nodeId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean hasReadyNodes(long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ClientRequest newClientRequest(String nodeId, AbstractRequest.Builder<?> requestBuilder,
                                          long createdTimeMs, boolean expectResponse) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void initiateClose() {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean active() {
        return true;
    }

    @Override
    public void close() {
        // nothing held
    }

    /** kafka-clients' {@link Time} on the fake clock ({@code MockTime} is only in kafka-clients' test jar). */
    private final class FakeTime implements Time {
        @Override
        public long milliseconds() {
            return nanos.get() / 1_000_000L;
        }

        @Override
        public long nanoseconds() {
            return nanos.get();
        }

        @Override
        public void sleep(long ms) {
            nanos.addAndGet(ms * 1_000_000L);
        }
    }
}
