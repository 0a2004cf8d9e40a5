package dev.kmeta.metadata.internal;

/**
 * Wakes the sender thread (for a sender on a {@code Selector}: {@code selector.wakeup()}). Called by application
 * threads after they post a command; must be thread-safe and must not block.
 */
@FunctionalInterface
public interface Waker {
    /** Wakes the sender if it is blocked waiting for I/O or a timer. */
    void wakeup();
}
