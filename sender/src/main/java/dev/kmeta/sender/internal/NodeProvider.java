package dev.kmeta.sender.internal;

import org.apache.kafka.clients.MetadataUpdater;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

/**
 * kmeta's seam into kafka-clients' {@code NetworkClient}: a {@link MetadataUpdater} that only tells the client which
 * nodes exist (the learned brokers, or the bootstrap addresses with ids -1, -2, ...) and reports disconnects and
 * rebootstrap decisions back to the {@link SenderLoop}. Metadata requests themselves are ordinary requests the
 * sender sends (as kafka-clients' own Admin client does), so {@link #handleSuccessfulResponse} and
 * {@link #handleFailedRequest} are never called.
 *
 * <p>Confined to the sender thread (kmeta's, or the producer's network thread when driven from its poll), except
 * {@link #fetchNodes()}, which returns a volatile immutable list.
 */
@SuppressKafkaInternalApiUsage("is the NetworkClient's MetadataUpdater: the seat kafka-clients gives a metadata source")
final class NodeProvider implements MetadataUpdater {
    /**
     * Callbacks into the sender. The client's own times ({@code now} of the updater methods) are not passed on: the
     * sender decides on its own clock, and hands the client's time back only to the client ({@link #step}).
     */
    interface Listener {
        void onDisconnect(String nodeId, AuthenticationException authFailure);

        boolean needsRebootstrap(long triggerMs);

        void rebootstrap();

        /**
         * A broker refused the cluster id and node id the client sent with ApiVersions (KIP-1242, kafka-clients
         * 4.4): the client has just closed its connections to the nodes of {@link #fetchNodes()} and now asks for a
         * rebootstrap, which this call does.
         *
         * @param clientNowMs the client's time, for the calls made on the client
         */
        void identityRefused(long clientNowMs);

        String clusterId();

        /**
         * One step of the sender's work (when a producer's poll drives kmeta); returns ms until the next.
         *
         * @param clientNowMs the client's time, for the calls the step makes on the client
         */
        long step(long clientNowMs);
    }

    private final Listener listener;
    private volatile List<Node> nodes;
    private boolean drivenByPoll;
    private boolean stepping;
    /** {@link #needsRebootstrap} said yes: the {@link #rebootstrap} that follows is the trigger's, not a refusal's. */
    private boolean triggerFired;

    NodeProvider(List<Node> bootstrapNodes, Listener listener) {
        if (bootstrapNodes.isEmpty()) {
            throw new IllegalArgumentException("no bootstrap nodes");
        }
        this.nodes = List.copyOf(bootstrapNodes);
        this.listener = listener;
    }

    /**
     * Makes {@link #maybeUpdate} run the sender's step: for a producer's own {@code NetworkClient}, whose every
     * {@code poll} then also does kmeta's work on the producer's thread.
     */
    void driveFromPoll() {
        drivenByPoll = true;
    }

    /** Replaces the node list; an empty list is ignored (NetworkClient must always have a node). */
    void setNodes(List<Node> newNodes) {
        if (!newNodes.isEmpty()) {
            nodes = List.copyOf(newNodes);
        }
    }

    @Override
    public List<Node> fetchNodes() {
        return nodes;
    }

    @Override
    public boolean isUpdateDue(long now) {
        return false;
    }

    @Override
    public long maybeUpdate(long now) {
        if (!drivenByPoll || stepping) {
            return Long.MAX_VALUE;
        }
        stepping = true; // the step calls the client's ready(), which must not re-enter the step
        try {
            return listener.step(now);
        } finally {
            stepping = false;
        }
    }

    @Override
    public void handleServerDisconnect(long now, String nodeId, Optional<AuthenticationException> auth) {
        listener.onDisconnect(nodeId, auth.orElse(null));
    }

    @Override
    public void handleFailedRequest(long now, Optional<KafkaException> maybeFatalException) {
        // never called: kmeta sends metadata requests as ordinary requests
    }

    @Override
    public void handleSuccessfulResponse(RequestHeader requestHeader, long now, MetadataResponse response) {
        // never called: kmeta sends metadata requests as ordinary requests
    }

    @Override
    public boolean needsRebootstrap(long now, long rebootstrapTriggerMs) {
        triggerFired = listener.needsRebootstrap(rebootstrapTriggerMs);
        return triggerFired;
    }

    /**
     * kafka-clients calls this after {@link #needsRebootstrap} said yes (the trigger) and, from 4.4, when a broker
     * answered ApiVersions with {@code REBOOTSTRAP_REQUIRED} (KIP-1242: the cluster id or node id kmeta sent is not
     * the broker's), without asking {@link #needsRebootstrap} first. kmeta's own Metadata {@code REBOOTSTRAP_REQUIRED}
     * does not come through here.
     */
    @Override
    public void rebootstrap(long now) {
        boolean trigger = triggerFired;
        triggerFired = false;
        if (trigger) {
            listener.rebootstrap();
        } else {
            listener.identityRefused(now);
        }
    }

    @Override
    public String clusterId() {
        return listener.clusterId();
    }

    @Override
    public boolean isBootstrapped() {
        return true;
    }

    @Override
    public void bootstrap(List<InetSocketAddress> addresses) {
        // bootstrap addresses are resolved lazily by NetworkClient through kmeta's HostResolver
    }

    @Override
    public void close() {
        // nothing held
    }
}
