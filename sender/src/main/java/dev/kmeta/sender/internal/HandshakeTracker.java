package dev.kmeta.sender.internal;

import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.NodeApiVersions;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;

/**
 * The {@link ApiVersions} of kmeta's own {@code NetworkClient}, which also tells, for the disconnect being reported,
 * whether that connection had finished its ApiVersions exchange: {@code NetworkClient} removes a node's versions
 * right before it reports the node's disconnect to the updater. A broker that refuses kmeta's identity (KIP-1242)
 * never finishes it, so {@link IdentityRefusals} counts only such connections as the ones that may have been refused -
 * kafka-clients does not say which node refused.
 *
 * <p>Used by the sender thread only (the one that polls the client); the superclass's own locking is kept.
 */
@SuppressKafkaInternalApiUsage("extends ApiVersions to learn which connections finished their ApiVersions exchange "
        + "(KIP-1242 refusals)")
final class HandshakeTracker extends ApiVersions {
    private String lastRemoved;
    private boolean lastRemovedHadVersions;

    @Override
    public synchronized void remove(String nodeId) {
        lastRemoved = nodeId;
        lastRemovedHadVersions = get(nodeId) != null;
        super.remove(nodeId);
    }

    /**
     * True unless the connection to {@code nodeId} that was just closed had finished its ApiVersions exchange; true
     * too when the client did not say (a disconnect of a node it removed no versions for).
     */
    synchronized boolean closedBeforeVersions(String nodeId) {
        return !nodeId.equals(lastRemoved) || !lastRemovedHadVersions;
    }
}
