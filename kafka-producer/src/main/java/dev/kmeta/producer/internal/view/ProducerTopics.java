package dev.kmeta.producer.internal.view;

import dev.kmeta.metadata.Ticker;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The topics one producer uses - what KafkaProducer and its Sender {@code add} to their metadata - with
 * kafka-clients' idle expiry ({@code metadata.max.idle.ms}): the scope of the producer's network-thread view.
 *
 * <p>Thread-safe. {@link #add} runs on every send: a known topic costs one map lookup and, at most once a second per
 * topic, one volatile write; it allocates nothing. {@link #version()} moves whenever a topic comes or goes. A topic's
 * first use is also stamped on the kmeta instance's clock ({@link #firstUsedMs}), the clock of kmeta's topic ages.
 *
 * <p>It is its map (a {@code ConcurrentHashMap} of each topic's use), not an object around one: a send looks a topic up
 * here three times, and one object less on that chain is one cache line less to miss when the caches went cold between
 * sends (issue 38). Only this class's methods are used; never serialized.
 */
final class ProducerTopics extends ConcurrentHashMap<String, ProducerTopics.Use> {
    private static final long serialVersionUID = 1L;
    /** How far a topic's use stamp may lag: the send path writes it at most this often. */
    static final long STAMP_GRANULARITY_MS = 1_000;

    private final transient AtomicInteger version = new AtomicInteger();
    private final transient long idleMs;
    private final transient Ticker ticker;
    private transient volatile long nextExpiryMs;

    /**
     * @param idleMs {@code metadata.max.idle.ms}
     * @param ticker the kmeta instance's clock, for {@link #firstUsedMs}
     */
    ProducerTopics(long idleMs, Ticker ticker) {
        this.idleMs = idleMs;
        this.ticker = ticker;
    }

    /** The producer uses {@code topic} at {@code nowMs} (KafkaProducer's clock). */
    ProducerViews.Added add(String topic, long nowMs) {
        Use u = get(topic);
        if (u != null) {
            return u.touch(nowMs) ? ProducerViews.Added.STAMPED : ProducerViews.Added.FRESH;
        }
        if (putIfAbsent(topic, new Use(nowMs, ticker.milliTime())) == null) {
            version.incrementAndGet();
            return ProducerViews.Added.JOINED;
        }
        return ProducerViews.Added.FRESH;
    }

    /**
     * This producer's look at {@code topic} in kmeta's snapshot {@code c} ({@link TopicLook}), or null when it does
     * not use the topic: made once per topic and snapshot version and kept on its {@link Use}, which the send's
     * {@code add} reads anyway - so a send reads one map of its producer's instead of that map and kmeta's snapshot
     * index (objects a send meets cold in P2k). Allocates one small object per topic per snapshot change.
     */
    TopicLook look(String topic, dev.kmeta.cluster.Cluster c) {
        Use u = get(topic);
        if (u == null) {
            return null;
        }
        TopicLook l = u.look;
        int version = c.version();
        if (l != null && l.version == version) {
            return l;
        }
        l = new TopicLook(version, c.topic(topic)); // versions only grow within an instance: one version, one snapshot
        u.look = l;
        return l;
    }

    /**
     * Drops the looks of versions other than {@code version} (the network thread, when kmeta's snapshot changed): a
     * look of an older version would keep its entry and view reachable until the topic's next send. O(topics).
     */
    void dropLooksNotAt(int version) {
        for (Use u : values()) {
            TopicLook l = u.look;
            if (l != null && l.version != version) {
                u.look = null; // racing a send that made a newer one: it is made again, no more
            }
        }
    }

    /**
     * Drops every look (the network thread, when this producer's view was replaced: a look keeps the view its sends
     * showed, which would keep the replaced one reachable). O(topics).
     */
    void dropLooks() {
        for (Use u : values()) {
            u.look = null;
        }
    }

    /** Moves whenever a topic is added or expires. */
    int version() {
        return version.get();
    }

    /** The topics (a live view). */
    Set<String> names() {
        return keySet();
    }

    /**
     * When this producer began using {@code topic} (since it last expired), on the kmeta instance's clock; -1 when it
     * does not use it.
     */
    long firstUsedMs(String topic) {
        Use u = get(topic);
        return u == null ? -1 : u.firstUsedTickerMs;
    }

    /** Drops the topics not used for {@code metadata.max.idle.ms}; looks at most once a second. */
    void expireIdle(long nowMs) {
        if (nowMs < nextExpiryMs) {
            return;
        }
        nextExpiryMs = nowMs + STAMP_GRANULARITY_MS;
        forEach((name, use) -> {
            if (nowMs - use.lastUsedMs > idleMs + STAMP_GRANULARITY_MS && remove(name, use)) {
                version.incrementAndGet();
            }
        });
    }

    static final class Use {
        volatile long lastUsedMs;
        /** The last look at the topic in kmeta's snapshot ({@link #look}), or null. */
        volatile TopicLook look;
        /** The first use, on the kmeta instance's clock. */
        final long firstUsedTickerMs;

        Use(long nowMs, long tickerMs) {
            this.lastUsedMs = nowMs;
            this.firstUsedTickerMs = tickerMs;
        }

        boolean touch(long nowMs) {
            if (nowMs - lastUsedMs >= STAMP_GRANULARITY_MS) {
                lastUsedMs = nowMs;
                return true;
            }
            return false;
        }
    }
}
