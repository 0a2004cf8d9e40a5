package dev.kmeta.sender;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.internal.Counters;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;

/**
 * What one kmeta instance has done since it started, read at one moment ({@link KafkaMetadata#stats()}): requests,
 * answers and their latency, waits and timeouts by cause, rejected epochs, leader hints, rebootstraps, cluster id
 * changes, and the threads waiting now. Like Caffeine's {@code CacheStats}: counts only go up between two snapshots
 * of one instance, so {@link #minus} gives what happened in between. The JMX view of the same numbers is
 * {@link KafkaMetadataMXBean}.
 *
 * <p>Immutable and thread-safe. Each value is read once when the snapshot is taken, while the sender goes on
 * counting, so two values may come from moments a few microseconds apart (an answer counted as sent but not yet
 * applied). Taking one costs a few dozen atomic reads and two small maps: for metrics, not for the send path.
 */
public final class MetadataStats {
    /**
     * Each number by name: a stats snapshot is built and subtracted by these, never by position. A {@code NOW} value
     * is read at the moment (a gauge) and {@link #minus} keeps it; the others are counts since the start.
     */
    enum Stat {
        REQUESTS_SENT, REQUESTS_FAILED, REQUESTS_COALESCED, RESPONSES_APPLIED, RESPONSES_REJECTED,
        REQUEST_LATENCY_TOTAL_MS, REQUEST_LATENCY_MAX_MS(true), WAIT_TIME_TOTAL_NS, WAIT_TIMEOUTS,
        STALE_EPOCHS_REJECTED, LEADER_HINTS_APPLIED, LEADER_HINTS_IGNORED, REBOOTSTRAPS, CLUSTER_ID_CHANGES,
        TOPICS_EXPIRED, TOPICS_REJECTED_BY_CAP, WAITERS_NOW(true), MISROUTED_CONNECTIONS, BOOTSTRAP_RESOLVE_TIMEOUTS,
        STALE_REFRESHES, WAITS, OLDEST_TOPIC_AGE_MS(true);

        final boolean now;

        Stat() {
            this(false);
        }

        Stat(boolean now) {
            this.now = now;
        }
    }

    private final EnumMap<Stat, Long> values;
    private final Map<Diagnosis.Cause, Long> waitTimeoutsByCause;

    /** A snapshot of {@code values}, which names every {@link Stat}. */
    MetadataStats(EnumMap<Stat, Long> values, Map<Diagnosis.Cause, Long> byCause) {
        if (values.size() != Stat.values().length) {
            throw new IllegalArgumentException("missing stats: " + EnumSet.complementOf(EnumSet.copyOf(values.keySet())));
        }
        this.values = values;
        this.waitTimeoutsByCause = Collections.unmodifiableMap(byCause);
    }

    /**
     * A snapshot of {@code counters}, the sender's own counts and the oldest subscribed topic's age (ms, -1 for
     * none), read now.
     */
    static MetadataStats of(Counters c, long rebootstraps, long misroutedConnections, long bootstrapResolveTimeouts,
                            long oldestTopicAgeMs) {
        EnumMap<Stat, Long> v = new EnumMap<>(Stat.class);
        v.put(Stat.REQUESTS_SENT, c.requestsSent());
        v.put(Stat.REQUESTS_FAILED, c.requestsFailed());
        v.put(Stat.REQUESTS_COALESCED, c.requestsCoalesced());
        v.put(Stat.RESPONSES_APPLIED, c.responsesApplied());
        v.put(Stat.RESPONSES_REJECTED, c.responsesRejected());
        v.put(Stat.REQUEST_LATENCY_TOTAL_MS, c.requestLatencyMsTotal());
        v.put(Stat.REQUEST_LATENCY_MAX_MS, c.requestLatencyMsMax());
        v.put(Stat.WAIT_TIME_TOTAL_NS, c.waitTimeNsTotal());
        v.put(Stat.WAIT_TIMEOUTS, c.waitTimeouts());
        v.put(Stat.STALE_EPOCHS_REJECTED, c.staleEpochsRejected());
        v.put(Stat.LEADER_HINTS_APPLIED, c.leaderHintsApplied());
        v.put(Stat.LEADER_HINTS_IGNORED, c.leaderHintsIgnored());
        v.put(Stat.REBOOTSTRAPS, rebootstraps);
        v.put(Stat.CLUSTER_ID_CHANGES, c.clusterIdChanges());
        v.put(Stat.TOPICS_EXPIRED, c.topicsExpired());
        v.put(Stat.TOPICS_REJECTED_BY_CAP, c.topicsRejectedByCap());
        v.put(Stat.WAITERS_NOW, c.waitersNow());
        v.put(Stat.MISROUTED_CONNECTIONS, misroutedConnections);
        v.put(Stat.BOOTSTRAP_RESOLVE_TIMEOUTS, bootstrapResolveTimeouts);
        v.put(Stat.STALE_REFRESHES, c.staleRefreshes());
        v.put(Stat.WAITS, c.waits());
        v.put(Stat.OLDEST_TOPIC_AGE_MS, oldestTopicAgeMs);
        return new MetadataStats(v, new EnumMap<>(c.waitTimeoutsByCause()));
    }

    /** The value named {@code stat}. */
    long get(Stat stat) {
        return values.get(stat);
    }

    /** Metadata requests sent (count). */
    public long requestsSent() {
        return get(Stat.REQUESTS_SENT);
    }

    /**
     * Requests that failed: disconnected, timed out, refused or lost by the network client, or answered unusably
     * (count).
     */
    public long requestsFailed() {
        return get(Stat.REQUESTS_FAILED);
    }

    /** Update requests folded into one already pending, so that they sent nothing of their own (count). */
    public long requestsCoalesced() {
        return get(Stat.REQUESTS_COALESCED);
    }

    /** Answers applied to the snapshot (count). */
    public long responsesApplied() {
        return get(Stat.RESPONSES_APPLIED);
    }

    /** Answers not believed at all, e.g. listing no brokers (count). */
    public long responsesRejected() {
        return get(Stat.RESPONSES_REJECTED);
    }

    /** Sum of the latencies of applied answers, request sent to answer applied (ms). */
    public long requestLatencyTotalMs() {
        return get(Stat.REQUEST_LATENCY_TOTAL_MS);
    }

    /** The largest latency of an applied answer (ms). */
    public long requestLatencyMaxMs() {
        return get(Stat.REQUEST_LATENCY_MAX_MS);
    }

    /** Average latency of an applied answer (ms); 0 before the first. */
    public double requestLatencyAvgMs() {
        long applied = responsesApplied();
        return applied == 0 ? 0 : (double) requestLatencyTotalMs() / applied;
    }

    /** Total time application threads spent waiting for metadata, all waits together (ns). */
    public long waitTimeTotalNs() {
        return get(Stat.WAIT_TIME_TOTAL_NS);
    }

    /** Waits that ended in a timeout, whatever the cause (count). */
    public long waitTimeouts() {
        return get(Stat.WAIT_TIMEOUTS);
    }

    /** Waits that ended in a timeout diagnosed as {@code cause} (count). */
    public long waitTimeouts(Diagnosis.Cause cause) {
        return waitTimeoutsByCause.get(Objects.requireNonNull(cause, "cause"));
    }

    /** Waits that ended in a timeout, by diagnosed cause: every cause in declaration order, zeros included. */
    public Map<Diagnosis.Cause, Long> waitTimeoutsByCause() {
        return waitTimeoutsByCause;
    }

    /** Partitions whose leader epoch in an answer was older than the cached one, so not applied (count, KIP-320). */
    public long staleEpochsRejected() {
        return get(Stat.STALE_EPOCHS_REJECTED);
    }

    /** KIP-951 leader hints applied to the snapshot (count). */
    public long leaderHintsApplied() {
        return get(Stat.LEADER_HINTS_APPLIED);
    }

    /** Leader hints not applied: stale or unusable (count). */
    public long leaderHintsIgnored() {
        return get(Stat.LEADER_HINTS_IGNORED);
    }

    /** Times the sender dropped the brokers it learned and went back to the bootstrap addresses (count). */
    public long rebootstraps() {
        return get(Stat.REBOOTSTRAPS);
    }

    /**
     * Times a broker refused the cluster id and node id kmeta sent on connecting (KIP-1242, kafka-clients and brokers
     * 4.4): the address leads to another broker or cluster; each is also a rebootstrap (count).
     */
    public long misroutedConnections() {
        return get(Stat.MISROUTED_CONNECTIONS);
    }

    /** Times {@code bootstrap.resolve.timeout.ms} passed with no bootstrap name resolving (KIP-909; count). */
    public long bootstrapResolveTimeouts() {
        return get(Stat.BOOTSTRAP_RESOLVE_TIMEOUTS);
    }

    /** Times the cluster id changed between answers (count). */
    public long clusterIdChanges() {
        return get(Stat.CLUSTER_ID_CHANGES);
    }

    /** Topics dropped for being idle past {@code metadata.max.idle.ms} (count). */
    public long topicsExpired() {
        return get(Stat.TOPICS_EXPIRED);
    }

    /** New topics refused because of {@code kmeta.metadata.max.topics} (count). */
    public long topicsRejectedByCap() {
        return get(Stat.TOPICS_REJECTED_BY_CAP);
    }

    /** Application threads waiting for metadata when the snapshot was taken (count; a "now" value, not a total). */
    public long waitersNow() {
        return get(Stat.WAITERS_NOW);
    }

    /**
     * Refreshes the staleness target asked for ({@code kmeta.metadata.max.staleness.ms}): each time subscribed topics
     * were older than the target, whatever their number (count).
     */
    public long staleRefreshes() {
        return get(Stat.STALE_REFRESHES);
    }

    /**
     * Waits for metadata past the cache (count): {@code awaitTopic}/{@code awaitLeader} calls that missed,
     * {@code awaitUpdate} calls, prefetches that had to wait. A cache hit is none: after a warm-up, a send to a
     * prefetched topic leaves it unchanged.
     */
    public long waits() {
        return get(Stat.WAITS);
    }

    /**
     * The age of the oldest subscribed topic's metadata when the snapshot was taken (ms; a "now" value): since an
     * answer last described it; -1 when no subscribed topic was described yet. The one number to alert on.
     */
    public long oldestTopicAgeMs() {
        return get(Stat.OLDEST_TOPIC_AGE_MS);
    }

    /**
     * What happened between {@code earlier} and this snapshot: every count minus the earlier one (never below 0);
     * {@link #requestLatencyMaxMs()}, {@link #waitersNow()} and {@link #oldestTopicAgeMs()} are this snapshot's own.
     */
    public MetadataStats minus(MetadataStats earlier) {
        Map<Diagnosis.Cause, Long> byCause = new EnumMap<>(Diagnosis.Cause.class);
        waitTimeoutsByCause.forEach((c, n) -> byCause.put(c, Math.max(0, n - earlier.waitTimeoutsByCause.get(c))));
        EnumMap<Stat, Long> v = new EnumMap<>(Stat.class);
        for (Stat stat : Stat.values()) {
            v.put(stat, stat.now ? get(stat) : Math.max(0, get(stat) - earlier.get(stat)));
        }
        return new MetadataStats(v, byCause);
    }

    @Override
    public String toString() {
        return "MetadataStats(sent=" + requestsSent() + ", failed=" + requestsFailed() + ", coalesced="
                + requestsCoalesced() + ", applied=" + responsesApplied() + ", rejected=" + responsesRejected()
                + ", latencyMaxMs=" + requestLatencyMaxMs() + ", waitTimeouts=" + waitTimeouts()
                + ", staleEpochsRejected=" + staleEpochsRejected() + ", hintsApplied=" + leaderHintsApplied()
                + ", rebootstraps=" + rebootstraps() + ", clusterIdChanges=" + clusterIdChanges() + ", misrouted="
                + misroutedConnections() + ", bootstrapResolveTimeouts=" + bootstrapResolveTimeouts()
                + ", waitersNow=" + waitersNow() + ", staleRefreshes=" + staleRefreshes() + ", waits=" + waits()
                + ", oldestTopicAgeMs=" + oldestTopicAgeMs() + ")";
    }
}
