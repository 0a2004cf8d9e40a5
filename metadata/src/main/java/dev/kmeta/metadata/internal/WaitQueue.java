package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.Ticker;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

/**
 * The threads parked for one thing (one topic, or any new version). Lock-free: waiters add and remove themselves,
 * the sender wakes them all after it has published what they wait for.
 *
 * <p>The protocol that rules out lost wake-ups: a waiter adds itself <em>before</em> it re-reads the snapshot, and
 * the sender publishes the snapshot (a volatile store) <em>before</em> it drains the queue; so either the waiter's
 * re-read sees the new snapshot, or the sender's drain sees the waiter.
 */
final class WaitQueue {
    private final ConcurrentLinkedQueue<Thread> threads = new ConcurrentLinkedQueue<>();

    /**
     * Parks the calling thread here for at most {@code nanos} on {@code ticker} (the wait's deadline's), unless {@code stillWaiting} - checked after the thread
     * is queued - says there is no need: the waiter's half of the protocol above, in one place.
     */
    void park(Ticker ticker, Object blocker, long nanos, BooleanSupplier stillWaiting) {
        Thread me = Thread.currentThread();
        threads.add(me);
        try {
            if (stillWaiting.getAsBoolean()) {
                ticker.park(blocker, nanos);
            }
        } finally {
            threads.remove(me); // O(waiters of this queue): only on the slow path
        }
    }

    boolean isEmpty() {
        return threads.isEmpty();
    }

    /**
     * Unparks (through {@code ticker}, the manager's) every thread queued now; returns how many. It takes at most as many threads as were queued when it
     * started: a woken waiter that finds nothing new re-queues itself at once, and draining "until empty" would then
     * keep the caller (the sender) unparking the same threads over and over for as long as they wait.
     *
     * <p>No wake-up is lost: the queue is FIFO, so the threads queued before the count are polled before any that
     * queue later, and a thread that queues after the count re-reads the snapshot after the caller published it.
     */
    int wakeAll(Ticker ticker) {
        int queued = threads.size();
        int n = 0;
        Thread t;
        while (n < queued && (t = threads.poll()) != null) {
            ticker.unpark(t);
            n++;
        }
        return n;
    }
}
