package dev.kmeta.producer.internal;

import org.apache.kafka.common.errors.TimeoutException;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The kmeta wait timeouts a {@link ProducerBridge} keeps for the sending thread's next call. KafkaProducer replaces a
 * TimeoutException thrown by {@code awaitUpdate} with its fixed message, so the bridge keeps kmeta's and throws it
 * from the {@code fetch()} KafkaProducer makes right after the wait - outside that catch and before KafkaProducer
 * compares its own clock with {@code max.block.ms}, so a sending thread that got no CPU for a while still gets the
 * diagnosis - or from {@code maybeThrowExceptionForTopic}, whichever comes first.
 *
 * <p>Also the bridge's mark in a thread's {@link SendIntent} ({@code SendIntent.bridge}): it refers to nothing of the
 * bridge, so a thread-local left on a thread that sent through a closed producer pins no kmeta instance, snapshot or
 * view.
 *
 * <p>Thread-safe: the timeout itself lives in the thread's {@link SendIntent}; the count of threads holding one is
 * atomic, and lets {@code fetch()} skip the thread-local lookup while none does.
 */
final class KeptTimeouts {
    private final AtomicInteger threads = new AtomicInteger();

    /** Keeps {@code e} for the thread's next call on this bridge. */
    void keep(SendIntent i, TimeoutException e) {
        if (i.error == null) {
            threads.incrementAndGet();
        }
        i.error = e;
    }

    /** Whether any thread holds a kept timeout of this bridge (no thread-local lookup needed otherwise). */
    boolean any() {
        return threads.get() != 0;
    }

    /** Throws the thread's kept timeout, once; nothing when none is kept. */
    void throwIfKept(SendIntent i) {
        if (i.error != null && i.bridge == this) {
            throw release(i);
        }
    }

    /** The thread's kept timeout for {@code topic} (forgotten now), or null. */
    TimeoutException take(SendIntent i, String topic) {
        return i.error == null || i.bridge != this || !topic.equals(i.topic) ? null : release(i);
    }

    /** Forgets the thread's kept timeout, whichever bridge kept it. */
    static void drop(SendIntent i) {
        if (i.error != null) {
            i.bridge.release(i);
        }
    }

    private TimeoutException release(SendIntent i) {
        TimeoutException e = i.error;
        i.error = null;
        threads.decrementAndGet();
        return e;
    }
}
