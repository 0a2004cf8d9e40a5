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
     * Unparks every thread queued now; returns how many. It takes at most as many threads as were queued when it
     * started: a woken waiter that finds nothing new re-queues itself at once, and draining "until empty" would then
     * keep the caller (the sender) unparking the same threads over and over for as long as they wait.
     *
     * <p>No wake-up is lost: the queue is FIFO, so the threads queued before the count are polled before any that
     * queue later, and a thread that queues after the count re-reads the snapshot after the caller published it.
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
