package dev.kmeta.bench;

import java.util.List;
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

/**
 * A kafka-clients {@link KafkaClient} for benchmarks of a driven {@code KafkaMetadata}
 * ({@code KafkaMetadata.builder(props).buildDriven()}, then {@code attach}): it does the part of
 * {@code NetworkClient.poll} a driven instance relies on, with no network. Every node is connected and ready; each
 * {@link #poll} first runs the updater's {@code maybeUpdate} (kmeta's step, which may {@link #send} a metadata
 * request), then completes the request in flight with {@link #answer}, running its callback as
 * {@code NetworkClient} does, inside {@code poll} on the calling thread. The same answer object is handed to every
 * request until it is replaced; with a null answer the request stays in flight.
 *
 * <p>Not thread-safe: one thread polls (the producer's network thread).
 */
final class AnsweringClient implements KafkaClient {
    private static final short METADATA_VERSION = Wire.VERSION;

    private final MetadataUpdater updater;
    private ClientRequest inFlight;
    private int correlationId;
    /** The answer to the next request(s). */
    MetadataResponse answer;
    /** Requests sent so far. */
    long sent;

    AnsweringClient(MetadataUpdater updater) {
        this.updater = updater;
    }

    @Override
    public List<ClientResponse> poll(long timeout, long now) {
        updater.maybeUpdate(now);
        ClientRequest r = inFlight;
        if (r == null || answer == null) {
            return List.of();
        }
        inFlight = null;
        ClientResponse done = new ClientResponse(r.makeHeader(METADATA_VERSION), r.callback(), r.destination(),
                r.createdTimeMs(), now, false, false, null, null, answer);
        done.onComplete();
        return List.of(done);
    }

    @Override
    public LeastLoadedNode leastLoadedNode(long now) {
        return new LeastLoadedNode(updater.fetchNodes().get(0), true);
    }

    @Override
    public boolean isReady(Node node, long now) {
        return inFlight == null;
    }

    @Override
    public boolean ready(Node node, long now) {
        return isReady(node, now);
    }

    @Override
    public long connectionDelay(Node node, long now) {
        return 0;
    }

    @Override
    public ClientRequest newClientRequest(String nodeId, AbstractRequest.Builder<?> requestBuilder,
                                          long createdTimeMs, boolean expectResponse, int requestTimeoutMs,
                                          RequestCompletionHandler callback) {
        return new ClientRequest(nodeId, requestBuilder, ++correlationId, "bench", createdTimeMs, expectResponse,
                requestTimeoutMs, callback);
    }

    @Override
    public void send(ClientRequest request, long now) {
        if (inFlight != null) {
            throw new IllegalStateException("a request is already in flight");
        }
        inFlight = request;
        sent++;
    }

    @Override
    public void wakeup() {
        // one thread: nothing to wake
    }

    @Override
    public boolean active() {
        return true;
    }

    @Override
    public void close() {
        // nothing held
    }

    // ------------------------------------------------------------------ not used by a driven instance

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
    public void disconnect(String nodeId) {
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
}
