package dev.kmeta.sender;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.internal.Counters;

import java.util.Collections;
import java.util.EnumMap;
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
 * applied). Taking one costs a few dozen atomic reads and one small map: for metrics, not for the send path.
 */
public final class MetadataStats {
    private final long requestsSent;
    private final long requestsFailed;
    private final long requestsCoalesced;
    private final long responsesApplied;
    private final long responsesRejected;
    private final long requestLatencyMsTotal;
    private final long requestLatencyMsMax;
    private final long waitTimeNsTotal;
    private final long waitTimeouts;
    private final Map<Diagnosis.Cause, Long> waitTimeoutsByCause;
    private final long staleEpochsRejected;
    private final long leaderHintsApplied;
    private final long leaderHintsIgnored;
    private final long rebootstraps;
    private final long clusterIdChanges;
    private final long topicsExpired;
    private final long topicsRejectedByCap;
    private final long waitersNow;
    private final long misroutedConnections;
    private final long bootstrapResolveTimeouts;
    private final long staleRefreshes;
    private final long waits;
    private final long oldestTopicAgeMs;

    private MetadataStats(long[] v, Map<Diagnosis.Cause, Long> byCause) {
        requestsSent = v[0];
        requestsFailed = v[1];
        requestsCoalesced = v[2];
        responsesApplied = v[3];
        responsesRejected = v[4];
        requestLatencyMsTotal = v[5];
        requestLatencyMsMax = v[6];
        waitTimeNsTotal = v[7];
        waitTimeouts = v[8];
        staleEpochsRejected = v[9];
        leaderHintsApplied = v[10];
        leaderHintsIgnored = v[11];
        rebootstraps = v[12];
        clusterIdChanges = v[13];
        topicsExpired = v[14];
        topicsRejectedByCap = v[15];
        waitersNow = v[16];
        misroutedConnections = v[17];
        bootstrapResolveTimeouts = v[18];
        staleRefreshes = v[19];
        waits = v[20];
        oldestTopicAgeMs = v[21];
        waitTimeoutsByCause = Collections.unmodifiableMap(byCause);
    }

    /**
     * A snapshot of {@code counters}, the sender's own counts and the oldest subscribed topic's age (ms, -1 for
     * none), read now.
     */
    static MetadataStats of(Counters c, long rebootstraps, long misroutedConnections, long bootstrapResolveTimeouts,
                            long oldestTopicAgeMs) {
        return new MetadataStats(new long[] {c.requestsSent(), c.requestsFailed(), c.requestsCoalesced(),
                c.responsesApplied(), c.responsesRejected(), c.requestLatencyMsTotal(), c.requestLatencyMsMax(),
                c.waitTimeNsTotal(), c.waitTimeouts(), c.staleEpochsRejected(), c.leaderHintsApplied(),
                c.leaderHintsIgnored(), rebootstraps, c.clusterIdChanges(), c.topicsExpired(),
                c.topicsRejectedByCap(), c.waitersNow(), misroutedConnections, bootstrapResolveTimeouts,
                c.staleRefreshes(), c.waits(), oldestTopicAgeMs},
                new EnumMap<>(c.waitTimeoutsByCause()));
    }

    /** Metadata requests sent (count). */
    public long requestsSent() {
        return requestsSent;
    }

    /** Requests that failed: disconnected, timed out, refused by the network client or answered unusably (count). */
    public long requestsFailed() {
        return requestsFailed;
    }

    /** Update requests folded into one already pending, so that they sent nothing of their own (count). */
    public long requestsCoalesced() {
        return requestsCoalesced;
    }

    /** Answers applied to the snapshot (count). */
    public long responsesApplied() {
        return responsesApplied;
    }

    /** Answers not believed at all, e.g. listing no brokers (count). */
    public long responsesRejected() {
        return responsesRejected;
    }

    /** Sum of the latencies of applied answers, request sent to answer applied (ms). */
    public long requestLatencyMsTotal() {
        return requestLatencyMsTotal;
    }

    /** The largest latency of an applied answer (ms). */
    public long requestLatencyMsMax() {
        return requestLatencyMsMax;
    }

    /** Average latency of an applied answer (ms); 0 before the first. */
    public double requestLatencyMsAvg() {
        return responsesApplied == 0 ? 0 : (double) requestLatencyMsTotal / responsesApplied;
    }

    /** Total time application threads spent waiting for metadata, all waits together (ns). */
    public long waitTimeNsTotal() {
        return waitTimeNsTotal;
    }

    /** Waits that ended in a timeout, whatever the cause (count). */
    public long waitTimeouts() {
        return waitTimeouts;
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
        return staleEpochsRejected;
    }

    /** KIP-951 leader hints applied to the snapshot (count). */
    public long leaderHintsApplied() {
        return leaderHintsApplied;
    }

    /** Leader hints not applied: stale or unusable (count). */
    public long leaderHintsIgnored() {
        return leaderHintsIgnored;
    }

    /** Times the sender dropped the brokers it learned and went back to the bootstrap addresses (count). */
    public long rebootstraps() {
        return rebootstraps;
    }

    /**
     * Times a broker refused the cluster id and node id kmeta sent on connecting (KIP-1242, kafka-clients and brokers
     * 4.4): the address leads to another broker or cluster; each is also a rebootstrap (count).
     */
    public long misroutedConnections() {
        return misroutedConnections;
    }

    /** Times {@code bootstrap.resolve.timeout.ms} passed with no bootstrap name resolving (KIP-909; count). */
    public long bootstrapResolveTimeouts() {
        return bootstrapResolveTimeouts;
    }

    /** Times the cluster id changed between answers (count). */
    public long clusterIdChanges() {
        return clusterIdChanges;
    }

    /** Topics dropped for being idle past {@code metadata.max.idle.ms} (count). */
    public long topicsExpired() {
        return topicsExpired;
    }

    /** New topics refused because of {@code kmeta.metadata.max.topics} (count). */
    public long topicsRejectedByCap() {
        return topicsRejectedByCap;
    }

    /** Application threads waiting for metadata when the snapshot was taken (count; a "now" value, not a total). */
    public long waitersNow() {
        return waitersNow;
    }

    /**
     * Refreshes the staleness target asked for ({@code kmeta.metadata.max.staleness.ms}): each time subscribed topics
     * were older than the target, whatever their number (count).
     */
    public long staleRefreshes() {
        return staleRefreshes;
    }

    /**
     * Waits for metadata past the cache (count): {@code awaitTopic}/{@code awaitLeader} calls that missed,
     * {@code awaitUpdate} calls, prefetches that had to wait. A cache hit is none: after a warm-up, a send to a
     * prefetched topic leaves it unchanged.
     */
    public long waits() {
        return waits;
    }

    /**
     * The age of the oldest subscribed topic's metadata when the snapshot was taken (ms; a "now" value): since an
     * answer last described it; -1 when no subscribed topic was described yet. The one number to alert on.
     */
    public long oldestTopicAgeMs() {
        return oldestTopicAgeMs;
    }

    /**
     * What happened between {@code earlier} and this snapshot: every count minus the earlier one (never below 0);
     * {@link #requestLatencyMsMax()}, {@link #waitersNow()} and {@link #oldestTopicAgeMs()} are this snapshot's own.
     */
    public MetadataStats minus(MetadataStats earlier) {
        Map<Diagnosis.Cause, Long> byCause = new EnumMap<>(Diagnosis.Cause.class);
        waitTimeoutsByCause.forEach((c, n) -> byCause.put(c, Math.max(0, n - earlier.waitTimeoutsByCause.get(c))));
        return new MetadataStats(new long[] {d(requestsSent, earlier.requestsSent),
                d(requestsFailed, earlier.requestsFailed), d(requestsCoalesced, earlier.requestsCoalesced),
                d(responsesApplied, earlier.responsesApplied), d(responsesRejected, earlier.responsesRejected),
                d(requestLatencyMsTotal, earlier.requestLatencyMsTotal), requestLatencyMsMax,
                d(waitTimeNsTotal, earlier.waitTimeNsTotal), d(waitTimeouts, earlier.waitTimeouts),
                d(staleEpochsRejected, earlier.staleEpochsRejected), d(leaderHintsApplied, earlier.leaderHintsApplied),
                d(leaderHintsIgnored, earlier.leaderHintsIgnored), d(rebootstraps, earlier.rebootstraps),
                d(clusterIdChanges, earlier.clusterIdChanges), d(topicsExpired, earlier.topicsExpired),
                d(topicsRejectedByCap, earlier.topicsRejectedByCap), waitersNow,
                d(misroutedConnections, earlier.misroutedConnections),
                d(bootstrapResolveTimeouts, earlier.bootstrapResolveTimeouts),
                d(staleRefreshes, earlier.staleRefreshes), d(waits, earlier.waits), oldestTopicAgeMs}, byCause);
    }

    private static long d(long now, long before) {
        return Math.max(0, now - before);
    }

    @Override
    public String toString() {
        return "MetadataStats(sent=" + requestsSent + ", failed=" + requestsFailed + ", coalesced=" + requestsCoalesced
                + ", applied=" + responsesApplied + ", rejected=" + responsesRejected + ", latencyMsMax="
                + requestLatencyMsMax + ", waitTimeouts=" + waitTimeouts + ", staleEpochsRejected="
                + staleEpochsRejected + ", hintsApplied=" + leaderHintsApplied + ", rebootstraps=" + rebootstraps
                + ", clusterIdChanges=" + clusterIdChanges + ", misrouted=" + misroutedConnections
                + ", bootstrapResolveTimeouts=" + bootstrapResolveTimeouts + ", waitersNow=" + waitersNow
                + ", staleRefreshes=" + staleRefreshes + ", waits=" + waits + ", oldestTopicAgeMs="
                + oldestTopicAgeMs + ")";
    }
}
