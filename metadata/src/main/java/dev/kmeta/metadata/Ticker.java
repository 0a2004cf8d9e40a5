package dev.kmeta.metadata;

import java.util.concurrent.locks.LockSupport;

/**
 * kmeta's one time seam: reading the time and waiting for it. Every timed behaviour of the library (the manager's
 * waits, the sender's timeouts and backoff, the KafkaProducer route's holds, re-checks and give-up margin) reads
 * {@link #nanoTime()} and parks through {@link #park}; a wait is ended early through {@link #unpark}. The system's
 * ticker ({@link #system()}) is {@link System#nanoTime()} and {@link LockSupport}; a test hands an instance a fake
 * that moves time when told and wakes exactly the threads whose deadlines passed (the tests' {@code FakeTicker}).
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

    /**
     * Parks the calling thread for at most {@code nanos} of this ticker's time, or until {@link #unpark} (or
     * {@link LockSupport#unpark}) or an interrupt; it may also return for no reason. Callers re-check what they wait
     * for and the time left, and the interrupt status, after every return. System default:
     * {@link LockSupport#parkNanos(Object, long)}.
     */
    default void park(Object blocker, long nanos) {
        LockSupport.parkNanos(blocker, nanos);
    }

    /** Ends {@code thread}'s {@link #park} (or makes its next one return at once). System default: {@link LockSupport#unpark}. */
    default void unpark(Thread thread) {
        LockSupport.unpark(thread);
    }

    /** The system's monotonic clock ({@link System#nanoTime()}) and {@link LockSupport}'s parking. */
    static Ticker system() {
        return System::nanoTime;
    }
}
