package dev.kmeta.sender;

import dev.kmeta.sender.internal.SenderCore;

import org.apache.kafka.clients.HostResolver;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.clients.MetadataUpdater;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;

/**
 * A {@link KafkaMetadata} without a thread of its own ({@link KafkaMetadata#driven} or
 * {@link KafkaMetadata.Builder#buildDriven()}), for a producer that runs its own kafka-clients {@code NetworkClient}:
 * kmeta is that client's metadata source ({@link #metadataUpdater()}), sends its metadata requests on it and does
 * its work inside the producer's {@code poll}. The three methods here are the only ones of kmeta's API that name
 * kafka-clients' network types ({@code MetadataUpdater}, {@code HostResolver}, {@code KafkaClient}); an instance with
 * its own sender thread has none of them, so a driven-only call on it does not compile.
 *
 * <pre>{@code
 * import java.util.Map;
 * import org.apache.kafka.clients.NetworkClient;
 *
 * Map<String, Object> props = ...;   // your producer config
 * DrivenKafkaMetadata metadata = KafkaMetadata.driven(props);
 * NetworkClient client = ...;        // yours, made with metadata.metadataUpdater() and metadata.hostResolver(), e.g.
 *                                    // ClientUtils.createNetworkClient(config, ..., updater, resolver, null, null)
 * metadata.attach(client);           // from now on every client.poll also does kmeta's work
 * }</pre>
 *
 * <p>Thread-safe as {@link KafkaMetadata}; {@link #attach} once, from the thread that built the client. The producer
 * closes its client; {@link #close()} releases kmeta's waiters.
 */
@SuppressKafkaInternalApiUsage("driven mode: a producer's own NetworkClient takes kmeta as its MetadataUpdater and "
        + "HostResolver, and kmeta sends on its KafkaClient")
public final class DrivenKafkaMetadata extends KafkaMetadata {
    DrivenKafkaMetadata(SenderCore core) {
        super(core);
    }

    /**
     * The {@code MetadataUpdater} to build your {@code NetworkClient} with, e.g.
     * {@code ClientUtils.createNetworkClient(config, ..., null, metadata.metadataUpdater(), metadata.hostResolver(),
     * null, null)}; then {@link #attach} the client.
     */
    public MetadataUpdater metadataUpdater() {
        return core.metadataUpdater();
    }

    /**
     * The resolver to build your {@code NetworkClient} with: the {@link HostResolverHook} given to the builder (or the
     * system's), recording DNS failures as evidence.
     */
    public HostResolver hostResolver() {
        return core.hostResolver();
    }

    /**
     * The client kmeta sends its metadata requests on. Call once, right after building the client; from then on
     * every {@code client.poll} of your network thread also does kmeta's work (on that thread), and kmeta wakes that
     * thread through {@code client.wakeup()} when a send needs metadata.
     *
     * @throws IllegalStateException if a client is already attached
     */
    public void attach(KafkaClient client) {
        core.attach(client);
    }
}
