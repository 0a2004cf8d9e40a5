package dev.kmeta.metadata.internal;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

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

    void add(Thread t) {
        threads.add(t);
    }

    /** O(waiters of this queue): only on the slow path, after a wake-up or a timeout. */
    void remove(Thread t) {
        threads.remove(t);
    }

    boolean isEmpty() {
        return threads.isEmpty();
    }

    /**
     * Unparks the threads queued when the call began; returns how many. Bounded by that count: a woken thread whose
     * question is still open queues itself again at once, and draining until empty would keep the sender here for as
     * long as waiters keep coming back. Those it leaves queued were queued after the caller published, so their
     * re-check sees what was published and they need no wake-up; every thread queued before is ahead of them (FIFO).
     */
    int wakeAll() {
        int queued = threads.size();
        int n = 0;
        Thread t;
        while (n < queued && (t = threads.poll()) != null) {
            LockSupport.unpark(t);
            n++;
        }
        return n;
    }
}
