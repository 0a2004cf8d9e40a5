package dev.kmeta.producer.internal.stats;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The producers this class loader's {@code KmetaProducer.create} made stock because kafka-clients is not supported:
 * the route MBean's {@code Fallbacks} and every instance's {@code RouteStats} count. Thread-safe.
 */
public final class Fallbacks {
    private static final AtomicLong COUNT = new AtomicLong();

    private Fallbacks() {
    }

    /** One more producer made stock; returns the count so far. */
    public static long add() {
        return COUNT.incrementAndGet();
    }

    /** How many so far. */
    public static long count() {
        return COUNT.get();
    }
}
