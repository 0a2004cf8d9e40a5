package dev.kmeta.metadata.internal;

import java.util.Map;
import java.util.TreeMap;

/**
 * How old the manager's metadata is, read now on the manager's ticker: the age of the last full answer (what
 * kafka-clients calls {@code metadata-age}), each subscribed topic's age, and the oldest of them (what the staleness
 * target and its gauges read). The sender writes the times it reads ({@link ManagerState.View#lastFullRefreshMs},
 * {@link TopicEntry#refreshedMs}); see {@link MetadataManager#metadataAgeMs} and the methods beside it.
 *
 * <p>Concurrency: any thread; no lock. Every read is of volatile fields the sender writes.
 */
final class MetadataAges {
    private final ManagerState.View view;

    MetadataAges(ManagerState.View view) {
        this.view = view;
    }

    /** Ms since the last applied answer to a FULL request; before the first one, ms since the manager was made. */
    long metadataAgeMs() {
        long last = view.lastFullRefreshMs();
        return Math.max(0, view.ticker().milliTime() - (last == TopicEntry.NEVER_MS ? view.startedMs() : last));
    }

    /** Ms since an applied answer last described {@code topic}; -1 when not subscribed or never described. */
    long topicAgeMs(String topic) {
        TopicEntry e = view.subscriptions().get(topic);
        return e == null ? -1 : ageMs(e, view.ticker().milliTime());
    }

    /** {@link #topicAgeMs} of every subscribed topic an answer described; a new map each call. */
    Map<String, Long> topicAgesMs() {
        long nowMs = view.ticker().milliTime();
        Map<String, Long> ages = new TreeMap<>();
        for (TopicEntry e : view.subscriptions().all()) {
            long age = ageMs(e, nowMs);
            if (age >= 0) {
                ages.put(e.name, age);
            }
        }
        return ages;
    }

    /** The largest {@link #topicAgeMs}; -1 when no subscribed topic was described yet. One pass. */
    long oldestTopicAgeMs() {
        long nowMs = view.ticker().milliTime();
        long oldest = -1;
        for (TopicEntry e : view.subscriptions().all()) {
            oldest = Math.max(oldest, ageMs(e, nowMs));
        }
        return oldest;
    }

    private static long ageMs(TopicEntry e, long nowMs) {
        long refreshed = e.refreshedMs;
        return refreshed == TopicEntry.NEVER_MS ? -1 : Math.max(0, nowMs - refreshed);
    }
}
