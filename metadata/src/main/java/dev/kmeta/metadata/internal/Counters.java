package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.Diagnosis;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The manager's counters, read by metrics from any thread. Sender-side counters are plain {@link AtomicLong}s
 * written by one thread; counters that application threads bump are {@link LongAdder}s so that they do not
 * contend.
 */
public final class Counters {
    final AtomicLong requestsSent = new AtomicLong();
    final AtomicLong requestsFailed = new AtomicLong();
    /** A version listener ({@code MetadataManager.onNewVersion}) threw; the sender went on. */
    final AtomicLong listenerFailures = new AtomicLong();
    final AtomicLong responsesApplied = new AtomicLong();
    final AtomicLong responsesRejected = new AtomicLong();
    final AtomicLong staleEpochsRejected = new AtomicLong();
    final AtomicLong leaderHintsApplied = new AtomicLong();
    final AtomicLong leaderHintsIgnored = new AtomicLong();
    final AtomicLong clusterIdChanges = new AtomicLong();
    final AtomicLong topicsExpired = new AtomicLong();
    final AtomicLong requestLatencyMsTotal = new AtomicLong();
    final AtomicLong requestLatencyMsMax = new AtomicLong();
    final LongAdder requestsCoalesced = new LongAdder();
    final LongAdder waitTimeNsTotal = new LongAdder();
    final LongAdder waitTimeouts = new LongAdder();
    final LongAdder waitersNow = new LongAdder();
    final LongAdder topicsRejectedByCap = new LongAdder();
    final AtomicLong staleRefreshes = new AtomicLong();
    final LongAdder waits = new LongAdder();
    /** Timeouts by {@link Diagnosis.Cause#ordinal()}; bumped only on the (rare) timeout path, so no adder needed. */
    private final AtomicLongArray waitTimeoutsByCause = new AtomicLongArray(Diagnosis.Cause.values().length);

    /** Metadata requests sent. */
    public long requestsSent() {
        return requestsSent.get();
    }

    /** Requests that failed (disconnect, timeout, unbelievable answer). */
    public long requestsFailed() {
        return requestsFailed.get();
    }

    /** Answers applied to the snapshot. */
    public long responsesApplied() {
        return responsesApplied.get();
    }

    /** Answers not believed at all (e.g. no brokers listed). */
    public long responsesRejected() {
        return responsesRejected.get();
    }

    /** Partitions whose older epoch in an answer was rejected. */
    public long staleEpochsRejected() {
        return staleEpochsRejected.get();
    }

    /** KIP-951 leader hints applied. */
    public long leaderHintsApplied() {
        return leaderHintsApplied.get();
    }

    /** Leader hints not applied (stale, unusable). */
    public long leaderHintsIgnored() {
        return leaderHintsIgnored.get();
    }

    /** Times the cluster id changed between answers. */
    public long clusterIdChanges() {
        return clusterIdChanges.get();
    }

    /** Topics dropped for being idle past {@code metadata.max.idle.ms}. */
    public long topicsExpired() {
        return topicsExpired.get();
    }

    /** Sum of request latencies in ms. */
    public long requestLatencyMsTotal() {
        return requestLatencyMsTotal.get();
    }

    /** The largest request latency seen, in ms. */
    public long requestLatencyMsMax() {
        return requestLatencyMsMax.get();
    }

    /** Update requests folded into one already pending (single flight at work). */
    public long requestsCoalesced() {
        return requestsCoalesced.sum();
    }

    /** Total time application threads spent waiting, in ns. */
    public long waitTimeNsTotal() {
        return waitTimeNsTotal.sum();
    }

    /** Waits that ended in a timeout. */
    public long waitTimeouts() {
        return waitTimeouts.sum();
    }

    /** Waits that ended in a timeout diagnosed as {@code cause}. */
    public long waitTimeouts(Diagnosis.Cause cause) {
        return waitTimeoutsByCause.get(cause.ordinal());
    }

    /** Waits that ended in a timeout, by diagnosed cause: every cause, in declaration order, zeros included. */
    public Map<Diagnosis.Cause, Long> waitTimeoutsByCause() {
        Map<Diagnosis.Cause, Long> byCause = new EnumMap<>(Diagnosis.Cause.class);
        for (Diagnosis.Cause c : Diagnosis.Cause.values()) {
            byCause.put(c, waitTimeoutsByCause.get(c.ordinal()));
        }
        return byCause;
    }

    /** Threads waiting right now. */
    public long waitersNow() {
        return waitersNow.sum();
    }

    /** New topics refused because of {@code kmeta.metadata.max.topics}. */
    public long topicsRejectedByCap() {
        return topicsRejectedByCap.sum();
    }

    /** Refreshes asked because subscribed topics were older than {@code kmeta.metadata.max.staleness.ms}. */
    public long staleRefreshes() {
        return staleRefreshes.get();
    }

    /** Waits that went past the cache (awaitTopic/awaitLeader misses, awaitUpdate, prefetch): a cache hit is none. */
    public long waits() {
        return waits.sum();
    }

    void recordTimeout(Diagnosis.Cause cause) {
        waitTimeoutsByCause.incrementAndGet(cause.ordinal());
    }

    void recordLatency(long ms) {
        requestLatencyMsTotal.addAndGet(ms);
        requestLatencyMsMax.accumulateAndGet(ms, Math::max);
    }
}
