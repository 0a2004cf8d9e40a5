package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.TooManyTopicsException;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The subscribed topics: one {@link TopicEntry} per name, however often it is asked for (a subscription key is the
 * topic name and nothing else - the Dubbo lesson), bounded by {@code kmeta.metadata.max.topics}.
 *
 * <p>Thread-safe. Application threads look entries up (lock-free) and add new ones; the sender removes idle ones.
 * The cap is checked before adding, so concurrent first subscriptions can pass it by at most the number of racing
 * threads.
 */
final class Subscriptions {
    private final ConcurrentHashMap<String, TopicEntry> entries = new ConcurrentHashMap<>();
    private final int maxTopics;
    private final Counters counters;

    Subscriptions(int maxTopics, Counters counters) {
        this.maxTopics = maxTopics;
        this.counters = counters;
    }

    /** The entry, or null when the topic is not subscribed. Lock-free, allocation-free. */
    TopicEntry get(String topic) {
        return entries.get(topic);
    }

    /**
     * The topic's entry, added if absent.
     *
     * @throws TooManyTopicsException if adding it would pass the cap; nothing is added then
     */
    TopicEntry subscribe(String topic, long nowNs) {
        TopicEntry e = entries.get(topic);
        if (e != null) {
            return e;
        }
        if (entries.size() >= maxTopics) {
            counters.topicsRejectedByCap.increment();
            throw Failures.make().tooManyTopics("Cannot subscribe topic " + topic + ": already " + entries.size()
                    + " topics subscribed, the limit set by kmeta.metadata.max.topics is " + maxTopics);
        }
        return entries.computeIfAbsent(topic, name -> new TopicEntry(name, nowNs));
    }

    /** The subscribed names (a live, unmodifiable view). */
    Set<String> names() {
        return Collections.unmodifiableSet(entries.keySet());
    }

    Collection<TopicEntry> all() {
        return entries.values();
    }

    int size() {
        return entries.size();
    }

    /**
     * Sender only: removes the entries unused for longer than {@code maxIdleNs} that nobody waits for, marks them
     * removed and returns them.
     */
    List<TopicEntry> expire(long nowNs, long maxIdleNs) {
        List<TopicEntry> expired = new ArrayList<>();
        for (TopicEntry e : entries.values()) {
            if (nowNs - e.lastUsedNs() > maxIdleNs && e.activeWaiters.get() == 0 && entries.remove(e.name, e)) {
                e.removed = true;
                e.waiters.wakeAll();
                expired.add(e);
            }
        }
        return expired;
    }

    /** Wakes every waiter of every topic (close, fatal error). */
    void wakeAll() {
        for (TopicEntry e : entries.values()) {
            e.waiters.wakeAll();
        }
    }
}
