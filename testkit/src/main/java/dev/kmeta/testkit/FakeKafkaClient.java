package dev.kmeta.testkit;

import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.clients.LeastLoadedNode;
import org.apache.kafka.clients.MetadataUpdater;
import org.apache.kafka.clients.RequestCompletionHandler;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.utils.Time;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * A fake kafka-clients {@link KafkaClient} on fake time, for unit tests of code that drives one: kmeta's sender, a
 * driven {@code KafkaMetadata}, a producer's network loop. It does, in the same order, the part of
 * {@code NetworkClient} such code relies on, with no network and no thread:
 * <ul>
 *   <li>{@link #poll} first runs the updater's {@code maybeUpdate} (a driven kmeta's step, which may send here), then
 *       moves the fake clock forward to the first thing due - a connection, an answer, a timeout - or by the poll
 *       timeout (not at all after a {@link #wakeup()}, as a woken selector), completes what is due (a disconnect
 *       reaches the updater's {@code handleServerDisconnect} first), asks the updater {@code needsRebootstrap} when
 *       {@link #rebootstrapTriggerMs} is set (closing every {@code fetchNodes()} connection and calling
 *       {@code rebootstrap} if so), and only then runs the completion callbacks;</li>
 *   <li>nodes are the updater's {@code fetchNodes()}. By default a connection completes 1 ms after {@code ready()}
 *       starts it, and one request is in flight at a time; with {@link #allConnected} every node is connected and
 *       ready at once, for any number of requests;</li>
 *   <li>a metadata request gets the answer {@link #answers} gives for its node, {@link #answerDelayMs} later; or,
 *       when that is null, none: the node drops the connection 1 ms later if {@link #drops} says so (the request
 *       completes as disconnected), else at the request's timeout the client closes it (disconnected and timed
 *       out). Any other request gets what {@link #otherAnswers} gives;</li>
 *   <li>{@link #send} throws whatever {@link #refuses} gives for the node; connections to the nodes
 *       {@link #refusesConnections} names fail 1 ms after they start and may start again a
 *       {@link #reconnectBackoffMs} after the failed attempt began.</li>
 * </ul>
 * It records what happened ({@link #sentTo}, {@link #sendCallsAtMs}, {@link #connectionsStarted}) in lists that grow
 * with every request; {@link #recordsNothing} turns that off, for benchmarks whose bytes per operation must be the
 * code under test's (with every node connected and answers in the same poll, a poll then allocates only the
 * request's bookkeeping and its {@code ClientResponse}).
 * Methods such code does not call throw {@link UnsupportedOperationException}. The clock ({@link #nanoTime()},
 * {@link #time()}) starts at 1 s and moves only in {@link #poll} and {@link #advanceMs}; give the same clock to the
 * code under test, so that it and the client agree: the client's own ({@code client::nanoTime}), or - so that threads
 * the code under test parks on fake time wake when the client moves it - a kmeta test {@code FakeTicker} the client
 * reads and moves ({@link #FakeKafkaClient(LongSupplier, LongConsumer)}).
 *
 * <p>Not thread-safe, except {@link #wakeup()} and the clock: the test thread is the network thread.
 */
public final class FakeKafkaClient implements KafkaClient {
    /** The answer to a request other than Metadata: {@code body}, {@code delayMs} after it was sent. */
    public record Reply(AbstractResponse body, long delayMs) {
    }

    private final AtomicLong ownNanos = new AtomicLong(1_000_000_000L);
    /** The clock: read, and moved forward to an instant (never back). */
    private final LongSupplier clockNs;
    private final LongConsumer advanceClockToNs;
    private final Time time = new FakeTime();
    private Function<String, MetadataResponse> answers = id -> null;
    private Function<ClientRequest, Reply> otherAnswers = r -> {
        throw new UnsupportedOperationException("no answer for " + r.requestBuilder());
    };
    private Predicate<String> drops = id -> false;
    private Predicate<String> refusesConnections = id -> false;
    private Function<String, RuntimeException> refuses = id -> null;
    private long reconnectBackoffMs = 50;
    private long answerDelayMs = 1;
    private long rebootstrapTriggerMs = -1;
    private boolean allConnected;
    private boolean recording = true;

    private final Map<String, Integer> connectionsStarted = new HashMap<>();
    private final List<Long> sendCallsAtMs = new ArrayList<>();
    private final List<String> sentTo = new ArrayList<>();
    private int unanswered;
    private long metadataRequestsSent;

    private MetadataUpdater updater;
    private final Set<String> connecting = new HashSet<>();
    private final Set<String> connected = new HashSet<>();
    private final Map<String, Long> attemptStartedMs = new HashMap<>();
    private final Set<String> refused = new HashSet<>();
    private final List<InFlight> inFlight = new ArrayList<>();
    private int correlationId;
    private volatile boolean woken;

    private static final class InFlight {
        final ClientRequest request;
        final AbstractResponse answer;
        final boolean peerDrops;
        final long completeAtMs;
        boolean dropped;

        InFlight(ClientRequest request, AbstractResponse answer, boolean peerDrops, long completeAtMs) {
            this.request = request;
            this.answer = answer;
            this.peerDrops = peerDrops;
            this.completeAtMs = completeAtMs;
        }
    }

    /** A client on its own fake clock, whose updater is set later ({@link #updater}), before the first call. */
    public FakeKafkaClient() {
        this.clockNs = ownNanos::get;
        this.advanceClockToNs = ns -> ownNanos.accumulateAndGet(ns, Math::max);
    }

    /**
     * A client on a clock it shares with the code under test: {@code nanoTime} reads it, {@code advanceToNs} moves it
     * to an instant (no earlier than now) - a kmeta test {@code FakeTicker}'s {@code nanoTime} and
     * {@code advanceToNs}, which wake the threads parked on it whose deadlines passed.
     */
    public FakeKafkaClient(LongSupplier nanoTime, LongConsumer advanceToNs) {
        this.clockNs = java.util.Objects.requireNonNull(nanoTime, "nanoTime");
        this.advanceClockToNs = java.util.Objects.requireNonNull(advanceToNs, "advanceToNs");
    }

    /** A client with {@code updater} in its updater seat, as {@code NetworkClient}'s constructor takes it. */
    public FakeKafkaClient(MetadataUpdater updater) {
        this();
        updater(updater);
    }

    // ------------------------------------------------------------------ set-up

    /** The updater seat, as {@code NetworkClient}'s constructor takes it. */
    public FakeKafkaClient updater(MetadataUpdater metadataUpdater) {
        this.updater = Objects.requireNonNull(metadataUpdater, "updater");
        return this;
    }

    /** Node id to its metadata answer; null: the node accepts the request but never answers (the default). */
    public FakeKafkaClient answers(Function<String, MetadataResponse> byNodeId) {
        this.answers = Objects.requireNonNull(byNodeId);
        return this;
    }

    /** The answer to each request other than Metadata (default: none, {@link #send} throws). */
    public FakeKafkaClient otherAnswers(Function<ClientRequest, Reply> byRequest) {
        this.otherAnswers = Objects.requireNonNull(byRequest);
        return this;
    }

    /** Node ids that close the connection when a request they do not answer arrives (rather than stay silent). */
    public FakeKafkaClient drops(Predicate<String> nodeIds) {
        this.drops = Objects.requireNonNull(nodeIds);
        return this;
    }

    /** Node ids whose connections are refused (1 ms after they start), retried after {@link #reconnectBackoffMs}. */
    public FakeKafkaClient refusesConnections(Predicate<String> nodeIds) {
        this.refusesConnections = Objects.requireNonNull(nodeIds);
        return this;
    }

    /** Node id to what {@link #send} throws instead of sending; null: it sends (the default). */
    public FakeKafkaClient refuses(Function<String, RuntimeException> byNodeId) {
        this.refuses = Objects.requireNonNull(byNodeId);
        return this;
    }

    /** The reconnect backoff after a refused connection, from the start of the failed attempt (default 50 ms). */
    public FakeKafkaClient reconnectBackoffMs(long ms) {
        this.reconnectBackoffMs = ms;
        return this;
    }

    /** How long after it was sent a metadata request gets its answer (default 1 ms; 0: in the same poll). */
    public FakeKafkaClient answerDelayMs(long ms) {
        this.answerDelayMs = ms;
        return this;
    }

    /**
     * Makes {@link #poll} ask the updater {@code needsRebootstrap(now, triggerMs)}, as {@code NetworkClient} does
     * with {@code metadata.recovery.strategy=rebootstrap}; by default it never asks (strategy none).
     */
    public FakeKafkaClient rebootstrapTriggerMs(long triggerMs) {
        this.rebootstrapTriggerMs = triggerMs;
        return this;
    }

    /** Every node connected and ready from the start, with any number of requests in flight. */
    public FakeKafkaClient allConnected() {
        this.allConnected = true;
        return this;
    }

    /**
     * Records nothing from now on: {@link #sentTo}, {@link #sendCallsAtMs} and {@link #connectionsStarted} then throw
     * {@link IllegalStateException} ({@link #unanswered} and {@link #metadataRequestsSent} still count). For
     * benchmarks: a long run's records would grow without bound and their allocations would be counted as the code
     * under test's.
     */
    public FakeKafkaClient recordsNothing() {
        this.recording = false;
        return this;
    }

    // ------------------------------------------------------------------ the clock and what happened

    /** The fake clock in ns (a kmeta {@code Ticker} is {@code client::nanoTime}). Thread-safe. */
    public long nanoTime() {
        return clockNs.getAsLong();
    }

    /** The fake clock in ms. Thread-safe. */
    public long nowMs() {
        return clockNs.getAsLong() / 1_000_000L;
    }

    /** kafka-clients' {@link Time} on the fake clock ({@code MockTime} is only in kafka-clients' test jar). */
    public Time time() {
        return time;
    }

    /**
     * Polls (a driven kmeta's step runs in each poll) until {@code fakeMs} of fake time have passed. For the test
     * thread that drives the client.
     */
    public void runFor(long fakeMs) {
        long endMs = nowMs() + fakeMs;
        while (nowMs() < endMs) {
            poll(endMs - nowMs(), nowMs());
        }
    }

    /**
     * Polls until {@code done}, within {@code fakeMs} of fake time.
     *
     * @throws AssertionError if {@code fakeMs} passed first ("not within N fake ms")
     */
    public void runUntil(BooleanSupplier done, long fakeMs) {
        long endMs = nowMs() + fakeMs;
        while (!done.getAsBoolean()) {
            if (nowMs() >= endMs) {
                throw new AssertionError("not within " + fakeMs + " fake ms");
            }
            poll(endMs - nowMs(), nowMs());
        }
    }

    /** Moves the fake clock forward by {@code ms}, completing nothing (the next {@link #poll} does). Thread-safe. */
    public void advanceMs(long ms) {
        advanceClockToNs.accept(clockNs.getAsLong() + Math.max(0, ms) * 1_000_000L);
    }

    /** Connections started ({@code ready()} on a node neither connected nor connecting), by node id. */
    public Map<String, Integer> connectionsStarted() {
        checkRecording();
        return connectionsStarted;
    }

    /** Fake times ({@link #nowMs()}) of every {@link #send} call, refused or not, in order. */
    public List<Long> sendCallsAtMs() {
        checkRecording();
        return sendCallsAtMs;
    }

    /** Node ids each metadata request was sent to, in order. */
    public List<String> sentTo() {
        checkRecording();
        return sentTo;
    }

    private void checkRecording() {
        if (!recording) {
            throw new IllegalStateException("this client records nothing (recordsNothing())");
        }
    }

    /** Metadata requests sent, counted whether or not the client records ({@link #recordsNothing}). */
    public long metadataRequestsSent() {
        return metadataRequestsSent;
    }

    /** Requests that got no answer: timed out or dropped by the node. */
    public int unanswered() {
        return unanswered;
    }

    // ------------------------------------------------------------------ KafkaClient

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
        return allConnected || connected.contains(node.idString()) && inFlight.isEmpty();
    }

    @Override
    public boolean ready(Node node, long now) {
        String id = node.idString();
        if (!allConnected && !connected.contains(id) && !connecting.contains(id) && connectionDelay(node, now) == 0) {
            connecting.add(id);
            if (recording) {
                connectionsStarted.merge(id, 1, Integer::sum);
            }
            attemptStartedMs.put(id, nowMs());
            refused.remove(id);
        }
        return isReady(node, now);
    }

    @Override
    public long connectionDelay(Node node, long now) {
        String id = node.idString();
        if (allConnected || connected.contains(id) || connecting.contains(id)) {
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

    /** Sends on the fake clock (the caller's {@code now} is not used: its clock may be another). */
    @Override
    public void send(ClientRequest request, long callerNowMs) {
        long now = nowMs();
        if (recording) {
            sendCallsAtMs.add(now);
        }
        String node = request.destination();
        RuntimeException refusal = refuses.apply(node);
        if (refusal != null) {
            throw refusal;
        }
        if (!allConnected && (!inFlight.isEmpty() || !connected.contains(node))) {
            throw new IllegalStateException("Attempt to send a request to node " + node + " which is not ready.");
        }
        if (!(request.requestBuilder() instanceof MetadataRequest.Builder)) {
            Reply reply = otherAnswers.apply(request);
            inFlight.add(new InFlight(request, reply.body(), false, now + reply.delayMs()));
            return;
        }
        metadataRequestsSent++;
        if (recording) {
            sentTo.add(node);
        }
        MetadataResponse answer = answers.apply(node);
        boolean peerDrops = answer == null && drops.test(node);
        long completeAtMs = answer != null ? now + answerDelayMs
                : peerDrops ? now + 1 : now + request.requestTimeoutMs();
        inFlight.add(new InFlight(request, answer, peerDrops, completeAtMs));
    }

    /** Polls on the fake clock (the caller's {@code now} is not used: its clock may be another). */
    @Override
    public List<ClientResponse> poll(long timeout, long callerNowMs) {
        long now = nowMs();
        long metadataTimeout = updater.maybeUpdate(now);
        advanceTo(dueMs(now, Math.min(timeout, metadataTimeout)));
        long nowMs = nowMs();
        completeConnections(nowMs);
        List<ClientResponse> done = completeDue(nowMs);
        if (rebootstrapTriggerMs >= 0 && updater.needsRebootstrap(nowMs, rebootstrapTriggerMs)) {
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

    private long dueMs(long now, long timeoutMs) {
        long untilMs = now + Math.max(0, timeoutMs);
        if (woken) { // as a selector woken before it selects: this poll does not wait
            woken = false;
            untilMs = now;
        }
        if (!connecting.isEmpty()) {
            untilMs = Math.min(untilMs, now + 1);
        }
        for (InFlight f : inFlight) {
            untilMs = Math.min(untilMs, Math.max(now, f.completeAtMs));
        }
        return untilMs;
    }

    private void advanceTo(long ms) {
        if (ms * 1_000_000L > clockNs.getAsLong()) {
            advanceClockToNs.accept(ms * 1_000_000L);
        }
    }

    private void completeConnections(long nowMs) {
        if (connecting.isEmpty()) {
            return;
        }
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
    }

    private List<ClientResponse> completeDue(long nowMs) {
        if (inFlight.isEmpty()) {
            return List.of();
        }
        List<ClientResponse> done = new ArrayList<>(inFlight.size());
        for (Iterator<InFlight> it = inFlight.iterator(); it.hasNext(); ) {
            InFlight f = it.next();
            if (!f.dropped && nowMs < f.completeAtMs) {
                continue;
            }
            it.remove();
            if (f.dropped) {
                done.add(response(f, nowMs, true, false, null));
            } else if (f.answer != null) {
                done.add(response(f, nowMs, false, false, f.answer));
            } else {
                unanswered++;
                done.add(response(f, nowMs, true, !f.peerDrops, null));
                closeConnection(f.request.destination(), nowMs);
            }
        }
        return done;
    }

    private static ClientResponse response(InFlight f, long nowMs, boolean disconnected, boolean timedOut,
                                           AbstractResponse body) {
        ClientRequest r = f.request;
        return new ClientResponse(r.makeHeader(r.requestBuilder().latestAllowedVersion()), r.callback(),
                r.destination(), r.createdTimeMs(), nowMs, disconnected, timedOut, null, null, body);
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
        for (InFlight f : inFlight) {
            if (f.request.destination().equals(nodeId)) {
                f.dropped = true;
            }
        }
    }

    /**
     * Forgets the Metadata requests in flight to {@code nodeId} without completing them, as {@code NetworkClient}
     * does when its poll throws: kafka-clients 4.4 closes the node list's connections inside its receive loop when a
     * broker refuses the client's identity (KIP-1242), and a receive read in the same poll from one of them finds no
     * request ("There are no in-flight requests for node -3"); the requests cancelled before it never complete.
     */
    public void loseMetadataRequests(String nodeId) {
        inFlight.removeIf(f -> f.request.destination().equals(nodeId)
                && f.request.requestBuilder() instanceof MetadataRequest.Builder);
    }

    /** The next {@link #poll} does not wait. Thread-safe. */
    @Override
    public void wakeup() {
        woken = true;
    }

    @Override
    public boolean active() {
        return true;
    }

    @Override
    public void close() {
        // nothing held
    }

    // ------------------------------------------------------------------ not used by the code it fakes for

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
        int n = 0;
        for (InFlight f : inFlight) {
            if (f.request.destination().equals(nodeId) && !f.dropped) { // dropped: cancelled, as NetworkClient's
                n++;
            }
        }
        return n;
    }

    @Override
    public boolean hasInFlightRequests(String nodeId) {
        return inFlightRequestCount(nodeId) > 0;
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

    private final class FakeTime implements Time {
        @Override
        public long milliseconds() {
            return nowMs();
        }

        @Override
        public long nanoseconds() {
            return clockNs.getAsLong();
        }

        @Override
        public void sleep(long ms) {
            advanceMs(ms);
        }

        @Override
        public void waitObject(Object obj, java.util.function.Supplier<Boolean> condition, long deadlineMs) {
            throw new UnsupportedOperationException();
        }
    }
}
