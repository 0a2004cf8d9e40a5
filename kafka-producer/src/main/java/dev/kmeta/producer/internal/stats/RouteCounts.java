package dev.kmeta.producer.internal.stats;

/**
 * What {@link RouteInstances} reads of one producer on the route: its counts and whether it closed. Implemented by
 * the producer's bridge; the counts are read at a producer's close and when someone asks (JMX, {@code RouteStats}),
 * never on a send. Implementations are thread-safe.
 */
public interface RouteCounts {
    /** Adds this producer's counts to {@code out}, indexed by {@code RouteStats.Counter#ordinal()}. */
    void addCountsTo(long[] out);

    /** Whether the producer closed. */
    boolean isClosed();
}
