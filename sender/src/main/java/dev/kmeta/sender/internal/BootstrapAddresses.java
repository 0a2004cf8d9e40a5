package dev.kmeta.sender.internal;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.internal.EvidenceRecorder;
import dev.kmeta.metadata.internal.Failures;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The bootstrap addresses as the {@link MetadataDriver} uses them: the node list a rebootstrap goes back to (ids -1,
 * -2, ...), the connections to them it drops so that the names resolve again, and the KIP-909
 * {@link BootstrapResolutionWatch} over their names, wired to the instance's BOOTSTRAP_DNS diagnosis.
 *
 * <p>Confined to the sender thread, except {@link #failure()} and {@link #resolveTimeouts()}, which any thread may
 * read.
 */
@SuppressKafkaInternalApiUsage("drops the NetworkClient's connections (KafkaClient) when it re-resolves the "
        + "bootstrap names")
final class BootstrapAddresses {
    private final MetadataConfig config;
    private final EvidenceRecorder evidence;
    private final Supplier<String> clusterId;
    private final List<Node> nodes;
    private final BootstrapResolutionWatch watch;

    /** @param clusterId the snapshot's cluster id now, for the diagnosis */
    BootstrapAddresses(MetadataConfig config, RecordingResolver resolver, EvidenceRecorder evidence,
                       Supplier<String> clusterId) {
        this.config = config;
        this.evidence = evidence;
        this.clusterId = clusterId;
        this.nodes = List.copyOf(Transport.bootstrapNodes(config));
        this.watch = new BootstrapResolutionWatch(config, resolver, nodes, this::diagnosis, evidence::changed);
    }

    /** The bootstrap nodes, an immutable list. */
    List<Node> nodes() {
        return nodes;
    }

    /** The watch's look at this step; returns ms until the next look is needed ({@link Long#MAX_VALUE}: none). */
    long check(long nowMs) {
        return watch.check(nowMs);
    }

    /** Times {@code bootstrap.resolve.timeout.ms} passed with no bootstrap name resolving. Any thread. */
    long resolveTimeouts() {
        return watch.timeouts();
    }

    /** BOOTSTRAP_DNS while the bound has passed with no bootstrap name resolving; else null. Any thread. */
    Diagnosis failure() {
        return watch.failure();
    }

    /**
     * A rebootstrap at {@code nowMs}: closes the connections to bootstrap addresses still open from the first answer,
     * so the next attempt resolves the names again (the address behind a name may have moved; a request in flight on
     * one comes back as disconnected and is retried), and watches their resolution again from now.
     */
    void resolveAgain(KafkaClient client, long nowMs) {
        dropConnections(client);
        watch.restart(nowMs);
    }

    private void dropConnections(KafkaClient client) {
        for (Node n : nodes) {
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

    /** The instance's BOOTSTRAP_DNS diagnosis, for the resolution watch: no wait, the bound as the budget. */
    private Diagnosis diagnosis(String seen) {
        List<String> lines = new ArrayList<>();
        for (ConnectionEvidence.Record r : evidence.records()) {
            lines.add(r.toString());
        }
        return Failures.make().diagnosis(Diagnosis.Cause.BOOTSTRAP_DNS, null, -1,
                config.bootstrapResolveTimeoutMs(), seen, "check the host names in bootstrap.servers and this "
                        + "host's DNS; kmeta keeps resolving them and goes on when one resolves", lines, -1,
                clusterId.get(), null);
    }
}
