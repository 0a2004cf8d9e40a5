package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.Ticker;
import dev.kmeta.metadata.TooManyTopicsException;

import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

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
    private final Names names = new Names();
    /** Moves after each add or removal has completed (never before), so a copy made between two equal reads is whole. */
    private final AtomicLong changes = new AtomicLong();
    /** Sender only: the last copy {@link Names#stableCopy} made, and the {@link #changes} it is good for. */
    private Set<String> copy = Set.of();
    private long copyChanges;

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
        boolean[] added = new boolean[1];
        TopicEntry entry = entries.computeIfAbsent(topic, name -> {
            added[0] = true;
            return new TopicEntry(name, nowNs);
        });
        if (added[0]) {
            changes.incrementAndGet();
        }
        return entry;
    }

    /** The subscribed names (a live, unmodifiable view; {@link Names#stableCopy} for a copy). */
    Names names() {
        return names;
    }

    /**
     * The live view of the subscribed names, which also hands out an immutable copy that is made again only when the
     * subscriptions changed: what a full request asks for, the same object from request to request while nothing was
     * added or expired (the sender then builds nothing per full request, bench FullAnswer).
     */
    final class Names extends AbstractSet<String> {
        @Override
        public Iterator<String> iterator() {
            return Collections.unmodifiableSet(entries.keySet()).iterator();
        }

        @Override
        public int size() {
            return entries.size();
        }

        @Override
        public boolean contains(Object o) {
            return o instanceof String && entries.containsKey(o);
        }

        /**
         * Sender only: an immutable copy of the names now, the previous one when nothing changed since it was made. A
         * name added while the copy is made moves {@link #changes} after it is in the map, so such a copy is never
         * taken for a stable one.
         */
        Set<String> stableCopy() {
            long before = changes.get();
            if (before == copyChanges) {
                return copy;
            }
            Set<String> fresh = Set.copyOf(entries.keySet());
            if (changes.get() == before) {
                copy = fresh;
                copyChanges = before;
            }
            return fresh;
        }
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
    List<TopicEntry> expire(long nowNs, long maxIdleNs, Ticker ticker) {
        List<TopicEntry> expired = new ArrayList<>();
        for (TopicEntry e : entries.values()) {
            if (nowNs - e.lastUsedNs() > maxIdleNs && e.activeWaiters.get() == 0 && entries.remove(e.name, e)) {
                changes.incrementAndGet();
                e.removed = true;
                e.waiters.wakeAll(ticker);
                expired.add(e);
            }
        }
        return expired;
    }

    /** Wakes every waiter of every topic (close, fatal error). */
    void wakeAll(Ticker ticker) {
        for (TopicEntry e : entries.values()) {
            e.waiters.wakeAll(ticker);
        }
    }
}
