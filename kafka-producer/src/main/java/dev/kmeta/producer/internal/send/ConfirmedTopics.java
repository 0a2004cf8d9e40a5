package dev.kmeta.producer.internal.send;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.sender.KafkaMetadata;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToLongFunction;

/**
 * Which topics one producer of a shared kmeta instance may build a request from that kafka-clients never rebuilds:
 * those a Metadata answer described after this producer first asked for them, as a stock producer's own metadata is
 * fetched when it first asks. kafka-clients 4.4 builds {@code sendOffsetsToTransaction}'s TxnOffsetCommit once, with
 * the topic ids of the producer's metadata, and retries it unchanged on {@code UNKNOWN_TOPIC_ID}: a producer joining
 * an instance that still held a deleted topic's old id (a topic no producer of it writes to, so no produce error
 * ever refreshed it) committed with that id forever (issue 37).
 *
 * <p>So {@code add(topics)} - which KafkaProducer calls before that request, and may follow with a wait - asks kmeta
 * for a refresh of each known topic this producer has not seen confirmed since it began using it (a send to it, or
 * this call; {@link #unconfirmed}), and the wait that
 * follows returns once an answer described each of them, or removed it ({@link #await}). A refresh is kmeta's
 * targeted one: any number of producers asking at once make one request, behind kmeta's backoff. Once confirmed, a
 * topic is trusted as a stock producer trusts its own metadata - kept fresh by kmeta's periodic and error-driven
 * refreshes - until this producer leaves it unused for {@code metadata.max.idle.ms}, after which it is confirmed
 * again (a stock producer forgets an idle topic and fetches it anew).
 *
 * <p>Sends are not gated: a produce request is rebuilt on every attempt from the current view, and an
 * {@code UNKNOWN_TOPIC_ID} answer makes the Sender ask kmeta for a refresh, so a joining producer's first send stays
 * warm. Times are the instance's {@link dev.kmeta.metadata.Ticker}'s, as kmeta's topic ages are.
 *
 * <p>Thread-safe, no lock: sending threads call it (KafkaProducer's {@code sendOffsetsToTransaction}); a topic's
 * entry is written by whichever thread asks, and two threads asking at once at worst ask kmeta twice.
 */
public final class ConfirmedTopics {
    /** What this producer knows of one topic. */
    private static final class Entry {
        /** When this producer first asked for the topic (or again, after it left it idle): ticker ms. */
        volatile long askedMs;
        /** An answer described the topic at or after {@link #askedMs}. */
        volatile boolean confirmed;
        /** When this producer last used the topic while confirmed: ticker ms. */
        volatile long usedMs;

        Entry(long askedMs) {
            this.askedMs = askedMs;
        }
    }

    private final KafkaMetadata metadata;
    private final long idleMs;
    /** When the producer began using a topic (a send's add, or add(topics)), on the instance's clock; -1: never. */
    private final ToLongFunction<String> firstUsedMs;
    private final ConcurrentHashMap<String, Entry> topics = new ConcurrentHashMap<>();
    private final LongAdder refreshesAsked = new LongAdder();

    /**
     * @param metadata the producer's kmeta handle
     * @param idleMs   {@code metadata.max.idle.ms}: a confirmed topic unused this long is confirmed again
     * @param firstUsedMs when the producer began using a topic, on the instance's clock (-1: never): the moment from
     *                 which an answer confirms it
     */
    public ConfirmedTopics(KafkaMetadata metadata, long idleMs, ToLongFunction<String> firstUsedMs) {
        this.metadata = metadata;
        this.idleMs = idleMs;
        this.firstUsedMs = firstUsedMs;
    }

    /**
     * Of {@code known} (topics kmeta's snapshot has), those this producer has not seen confirmed; kmeta is asked to
     * refresh each of them. An empty list when all are confirmed (then nothing is asked and nothing allocated past the
     * lookups).
     */
    public List<String> unconfirmed(Collection<String> known) {
        List<String> left = null;
        long nowMs = metadata.ticker().milliTime();
        for (String topic : known) {
            if (!isConfirmed(topic, nowMs)) {
                if (left == null) {
                    left = new ArrayList<>(known.size());
                }
                left.add(topic);
                ask(topic);
            }
        }
        return left == null ? List.of() : left;
    }

    /**
     * Waits until an answer described each of {@code topics} after this producer asked for it, or removed it from
     * kmeta's snapshot. After each answer that did not, the topics left are asked for again (one targeted refresh,
     * behind kmeta's backoff: the requests are bounded by kmeta's answers, however many producers wait).
     *
     * @throws org.apache.kafka.common.errors.TimeoutException   kmeta's diagnosed timeout, at the deadline
     * @throws org.apache.kafka.common.errors.InterruptException if the thread is or gets interrupted
     * @throws org.apache.kafka.common.KafkaException             if the instance is or gets closed
     */
    public void await(List<String> topics, Deadline deadline) {
        List<String> left = topics;
        for (boolean asked = true; ; asked = false) {
            int version = metadata.fetch().version();
            left = stillUnconfirmed(left);
            if (left.isEmpty()) {
                return;
            }
            if (!asked) { // an answer came and did not describe these: ask again
                left.forEach(this::ask);
            }
            metadata.awaitUpdate(version, deadline);
        }
    }

    /** How many topic refreshes this producer asked kmeta for to confirm topics. */
    public long refreshesAsked() {
        return refreshesAsked.sum();
    }

    private List<String> stillUnconfirmed(List<String> topics) {
        long nowMs = metadata.ticker().milliTime();
        dev.kmeta.cluster.Cluster snapshot = metadata.fetch();
        List<String> left = new ArrayList<>(topics.size());
        for (String topic : topics) {
            if (snapshot.topic(topic) != null && !isConfirmed(topic, nowMs)) {
                left.add(topic);
            }
        }
        return left;
    }

    private boolean isConfirmed(String topic, long nowMs) {
        Entry e = topics.computeIfAbsent(topic, t -> {
            long firstUsed = firstUsedMs.applyAsLong(t); // a send to it may have waited for an answer already
            return new Entry(firstUsed < 0 ? nowMs : Math.min(firstUsed, nowMs));
        });
        if (e.confirmed) {
            if (nowMs - e.usedMs <= idleMs) {
                e.usedMs = nowMs;
                return true;
            }
            e.confirmed = false; // left idle: a stock producer would have dropped it and would fetch it anew
            e.askedMs = nowMs;
        }
        if (describedSince(topic, e.askedMs)) {
            e.usedMs = nowMs;
            e.confirmed = true;
            return true;
        }
        return false;
    }

    /** True when an answer described the topic at or after {@code sinceMs}, on the instance's ticker. */
    private boolean describedSince(String topic, long sinceMs) {
        long ageMs = metadata.topicAgeMs(topic);
        // the clock read after the age: now - age is no earlier than the answer (by the few ns between the two reads)
        return ageMs >= 0 && metadata.ticker().milliTime() - ageMs >= sinceMs;
    }

    private void ask(String topic) {
        refreshesAsked.increment();
        metadata.invalidate(topic, 0);
    }
}
