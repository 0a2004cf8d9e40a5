package dev.kmeta.spring;

import dev.kmeta.sender.internal.Handles;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.sender.KafkaMetadata;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The kmeta instances under a {@link KmetaProducerFactory}'s producers (and its copies'): each raw producer's handle,
 * kept while the producer is open, and the listeners told once of each instance new to this tracker (the
 * auto-configuration binds its meters so).
 *
 * <p>Thread-safe: one lock guards the lists; listeners run outside it.
 */
final class KmetaInstances {
    private final List<KafkaMetadata> handles = new ArrayList<>();
    private final List<Consumer<KafkaMetadata>> listeners = new ArrayList<>();
    /**
     * One open handle per instance listeners were told of. An instance whose told handle closed while others stay open
     * is told again with a new handle (harmless for the meters: Micrometer keeps the first registration).
     */
    private final List<KafkaMetadata> seen = new ArrayList<>();

    /** A new producer's handle. */
    void add(KafkaMetadata handle) {
        List<Consumer<KafkaMetadata>> tell;
        synchronized (this) {
            handles.removeIf(KmetaInstances::closed);
            handles.add(handle);
            seen.removeIf(KmetaInstances::closed); // a closed handle would keep its instance's memory
            if (contains(seen, handle)) {
                return;
            }
            seen.add(handle);
            tell = List.copyOf(listeners);
        }
        tell.forEach(l -> l.accept(handle));
    }

    /** Tells {@code listener} of every instance seen so far, then of each new one. */
    void onNewInstance(Consumer<KafkaMetadata> listener) {
        List<KafkaMetadata> known;
        synchronized (this) {
            listeners.add(listener);
            known = List.copyOf(seen);
        }
        known.forEach(listener);
    }

    /** One open handle per instance under an open producer. */
    synchronized List<KafkaMetadata> open() {
        handles.removeIf(KmetaInstances::closed);
        List<KafkaMetadata> one = new ArrayList<>();
        for (KafkaMetadata h : handles) {
            if (!contains(one, h)) {
                one.add(h);
            }
        }
        return one;
    }

    static boolean contains(List<KafkaMetadata> list, KafkaMetadata handle) {
        for (KafkaMetadata h : list) {
            if (Handles.sameInstance(h, handle)) {
                return true;
            }
        }
        return false;
    }

    private static boolean closed(KafkaMetadata handle) {
        return handle.state() == RefreshState.CLOSED;
    }
}
