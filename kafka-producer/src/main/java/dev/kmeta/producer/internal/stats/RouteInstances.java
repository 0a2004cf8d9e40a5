package dev.kmeta.producer.internal.stats;

import dev.kmeta.producer.RouteStats.Counter;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.internal.Handles;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.management.ObjectName;

/**
 * The producers on each kmeta instance, for the route's counts per instance ({@code RouteStats}): a producer joins
 * when {@code KmetaProducer.create} made it and leaves when it closes; its counts then stay in the instance's totals.
 * The instance's entry - and its JMX name - goes with its last producer, so nothing here outlives the instance.
 *
 * <p>Thread-safe: a concurrent map of per-instance entries; an entry's live set is concurrent and its totals are
 * added under the entry's monitor (at a producer's close only, never on a send).
 */
public final class RouteInstances {
    private static final Map<Object, Route> BY_INSTANCE = new ConcurrentHashMap<>();

    private RouteInstances() {
    }

    /** One instance's producers and the counts of those closed. */
    static final class Route {
        final String clientId;
        final Set<RouteCounts> live = ConcurrentHashMap.newKeySet();
        private final long[] retired = new long[Counter.values().length];
        /** Its JMX name once registered; null while none. */
        volatile ObjectName mbean;

        Route(String clientId) {
            this.clientId = clientId;
        }

        /** The counts now: the open producers' plus the closed ones'. */
        long[] counts() {
            long[] out;
            synchronized (this) {
                out = retired.clone();
            }
            for (RouteCounts b : live) {
                b.addCountsTo(out);
            }
            out[Counter.PRODUCERS_OPEN.ordinal()] = live.size();
            out[Counter.FALLBACKS.ordinal()] = Fallbacks.count();
            return out;
        }

        private synchronized void retire(RouteCounts b) {
            b.addCountsTo(retired);
        }
    }

    /** {@code bridge}'s producer runs on {@code metadata}'s instance (after KmetaProducer.create made it). */
    public static void join(KafkaMetadata metadata, RouteCounts bridge) {
        Object key = Handles.instanceOf(metadata);
        Route route = BY_INSTANCE.compute(key, (k, r) -> {
            Route out = r != null ? r : new Route(metadata.config().clientId());
            out.live.add(bridge);
            return out;
        });
        if (route.mbean == null) {
            RouteStatsMBean.register(route);
        }
        if (bridge.isClosed()) { // closed meanwhile: its close may have missed the entry
            leave(metadata, bridge);
        }
    }

    /** {@code bridge}'s producer closed: its counts go to the instance's totals; the last one removes the entry. */
    public static void leave(KafkaMetadata metadata, RouteCounts bridge) {
        Object key = Handles.instanceOf(metadata);
        Route[] gone = new Route[1];
        BY_INSTANCE.computeIfPresent(key, (k, r) -> {
            if (r.live.remove(bridge)) {
                r.retire(bridge);
            }
            if (r.live.isEmpty()) {
                gone[0] = r;
                return null;
            }
            return r;
        });
        if (gone[0] != null) {
            RouteStatsMBean.unregister(gone[0]);
        }
    }

    /** The counts of {@code metadata}'s instance, by {@link Counter#ordinal()}; null when no producer of it is open. */
    public static long[] counts(KafkaMetadata metadata) {
        Route r = BY_INSTANCE.get(Handles.instanceOf(metadata));
        return r == null ? null : r.counts();
    }

    /** How many instances have a route entry (for tests: none after every producer closed). */
    static int instances() {
        return BY_INSTANCE.size();
    }
}
