package dev.kmeta.sender;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataException;
import dev.kmeta.metadata.PrefetchResult;
import dev.kmeta.metadata.internal.Failures;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.sender.internal.SenderCore;

import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The bodies of {@link KafkaMetadata}'s calls off the send path that check the handle and convert kmeta's exceptions
 * to Kafka's ({@code requestUpdate}, {@code awaitUpdate}, {@code prefetch}), and the handle's close. The send path's
 * methods ({@code fetch}, {@code awaitTopic}, {@code awaitLeader}, {@code subscribe}) keep theirs in
 * {@code KafkaMetadata}, so that a cache hit takes no extra hop.
 *
 * <p>Thread-safe: holds the handle's core and its closed flag (the handle's own, shared with it), nothing else.
 */
final class HandleCalls {
    private final SenderCore core;
    private final AtomicBoolean closed;
    /** The client.id the handle was made with (a shared instance's users are named by it). */
    private final String user;

    HandleCalls(SenderCore core, AtomicBoolean closed, String user) {
        this.core = core;
        this.closed = closed;
        this.user = user;
    }

    /** What a call on a closed handle throws (before conversion to Kafka's type). */
    MetadataClosedException closedError() {
        return Failures.make().closed("This kmeta handle for " + core.config().clientId() + " is closed");
    }

    int requestUpdate() {
        try {
            return open().requestUpdate();
        } catch (MetadataException e) {
            throw KafkaErrors.toKafka(e);
        }
    }

    void awaitUpdate(int lastVersion, Deadline deadline) {
        try {
            open().awaitUpdate(lastVersion, deadline);
        } catch (MetadataException e) {
            throw KafkaErrors.toKafka(e);
        }
    }

    PrefetchResult prefetch(Collection<String> topics, Deadline deadline) {
        try {
            return open().prefetch(topics, deadline);
        } catch (MetadataException e) {
            throw KafkaErrors.toKafka(e);
        }
    }

    /** Closes the handle once; the instance stops when its last handle closes. */
    void close() {
        if (closed.compareAndSet(false, true)) {
            core.release(user);
        }
    }

    private MetadataManager open() {
        if (closed.get()) {
            throw closedError();
        }
        return core.manager();
    }
}
