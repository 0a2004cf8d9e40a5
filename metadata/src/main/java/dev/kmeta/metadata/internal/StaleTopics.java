package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.RefreshState;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The staleness target ({@code kmeta.metadata.max.staleness.ms}): finds the subscribed topics whose metadata is older
 * than the target and asks the {@link RefreshStateMachine} to refresh them ahead of {@code metadata.max.age.ms} -
 * only those (a partial request), or every subscribed topic (a full one) when all described topics are stale.
 *
 * <p>Never a storm: it asks at most once per target period, however many topics are stale (they go in one request),
 * and what it asks waits out the retry backoff like any refresh. It looks only when the next topic can have become
 * stale (the oldest fresh topic's refresh time plus the target), so between two looks it costs nothing; a look is one
 * pass over the subscriptions. A topic not in the snapshot (never described, or deleted since) is not stale: it has
 * no metadata to be old, and its waits ask for it.
 *
 * <p>Not thread-safe: the sender thread only.
 */
final class StaleTopics {
    private static final long NEVER = Long.MIN_VALUE / 4;
    /** Targets above this are as good as never (and keep the sums below from overflowing: ticker ms are small). */
    private static final long MAX_TARGET_MS = Long.MAX_VALUE / 4;

    private final long targetMs;
    private long nextLookMs = NEVER;
    private long lastAskedMs = NEVER;

    /** @param targetMs the target; 0 turns this off */
    StaleTopics(long targetMs) {
        this.targetMs = Math.min(targetMs, MAX_TARGET_MS);
    }

    /**
     * Asks for a refresh of the stale topics when a look is due; returns ms until the next look ({@link Long#MAX_VALUE}
     * when off, or while a request is in flight: its answer ends the step that calls this again).
     */
    long check(long nowMs, Cluster snapshot, Collection<TopicEntry> entries, RefreshStateMachine machine,
               Counters counters) {
        if (targetMs <= 0 || machine.state() == RefreshState.IN_FLIGHT || machine.state() == RefreshState.CLOSED) {
            return Long.MAX_VALUE;
        }
        if (nowMs < nextLookMs) {
            return nextLookMs - nowMs;
        }
        List<String> stale = new ArrayList<>();
        int described = 0;
        long oldestFreshMs = Long.MAX_VALUE;
        for (TopicEntry e : entries) {
            long refreshedMs = e.refreshedMs;
            if (refreshedMs == TopicEntry.NEVER_MS || e.removed || snapshot.topic(e.name) == null) {
                continue;
            }
            described++;
            if (nowMs - refreshedMs > targetMs) {
                stale.add(e.name);
            } else {
                oldestFreshMs = Math.min(oldestFreshMs, refreshedMs);
            }
        }
        if (!stale.isEmpty()) {
            ask(stale, described, machine);
            counters.staleRefreshes.incrementAndGet();
            lastAskedMs = nowMs;
        }
        // A topic described later than this look becomes stale no earlier than the oldest fresh one.
        long staleNextMs = oldestFreshMs == Long.MAX_VALUE ? nowMs + targetMs : oldestFreshMs + targetMs + 1;
        nextLookMs = Math.max(staleNextMs, lastAskedMs + targetMs);
        return nextLookMs - nowMs;
    }

    private static void ask(List<String> stale, int described, RefreshStateMachine machine) {
        if (stale.size() == described) {
            machine.requestFull("every subscribed topic is older than kmeta.metadata.max.staleness.ms");
            return;
        }
        for (String topic : stale) {
            machine.addRefresh(topic, false);
        }
    }
}
