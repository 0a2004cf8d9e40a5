package dev.kmeta.producer.internal;

/**
 * A test hook on the per-ABI {@code ProducerMetadata} stand-ins ({@code ProducerMetadata44}, {@code
 * ProducerMetadata40}): which of their methods kafka-clients calls, on which thread, in which order. Off unless a
 * test installs a listener: a stand-in reads the installed listener once, when it is made, so a stand-in made with
 * none pays one null check of a final field per call. Used by compat-tests' pinned call traces
 * ({@code ProducerCallTracesTest}); the listener is per class loader (each kafka-clients version runs in its own).
 *
 * <p>Thread-safe: the installed listener is a volatile field; listeners are called on the calling thread and must be
 * thread-safe themselves.
 */
public final class StandInCalls {
    /** Told of each call on a stand-in made while it was installed, on the calling thread, before the call runs. */
    @FunctionalInterface
    public interface Listener {
        /**
         * @param standIn the stand-in called
         * @param method  the {@code ProducerMetadata} method ({@code "add(Collection)"} for the 4.4 overload)
         */
        void called(Object standIn, String method);
    }

    private static volatile Listener installed;

    private StandInCalls() {
    }

    /** Installs {@code listener} for the stand-ins made from now on; {@code null} turns the hook off again. */
    public static void install(Listener listener) {
        installed = listener;
    }

    /** The listener a stand-in being made keeps, or null. */
    static Listener installed() {
        return installed;
    }
}
