package dev.kmeta.metadata;

/**
 * A monotonic time source in nanoseconds, injected so that waits with budgets can be tested on fake time.
 *
 * <p>Implementations must be thread-safe: application threads and the sender thread read it concurrently.
 */
@FunctionalInterface
public interface Ticker {
    /** Monotonic nanoseconds; only differences are meaningful. */
    long nanoTime();

    /** Milliseconds derived from {@link #nanoTime()} (monotonic, not wall-clock). */
    default long milliTime() {
        return nanoTime() / 1_000_000L;
    }

    /** The system's monotonic clock ({@link System#nanoTime()}). */
    static Ticker system() {
        return System::nanoTime;
    }
}
