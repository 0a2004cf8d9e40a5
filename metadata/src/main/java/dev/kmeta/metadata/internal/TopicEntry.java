package dev.kmeta.metadata.internal;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One subscribed topic: the threads waiting for it, when it was last used, and what the brokers last said of it.
 *
 * <p>Shared between application threads and the sender. Application threads only stamp {@link #touch usage}, flip
 * {@link #refreshRequested} and queue themselves in {@link #waiters}; every other field is written by the sender
 * alone (volatile where application threads read it for a timeout message).
 */
final class TopicEntry {
    /** Usage stamps closer than this are not rewritten: a cache hit writes nothing shared. */
    static final long TOUCH_GRANULARITY_NS = 1_000_000_000L;
    /** {@link #refreshedMs} before any answer described the topic. */
    static final long NEVER_MS = Long.MIN_VALUE;

    final String name;
    final WaitQueue waiters = new WaitQueue();
    /** Threads inside a wait for this topic (queued or not at this instant); an entry with any never expires. */
    final java.util.concurrent.atomic.AtomicInteger activeWaiters = new java.util.concurrent.atomic.AtomicInteger();
    /** Set by the application thread that posts this entry to the sender; cleared by the sender when it takes it. */
    final AtomicBoolean refreshRequested = new AtomicBoolean();
    final long subscribedNs;
    private volatile long lastUsedNs;

    /** Sender-written: true once metadata for the topic has arrived at least once. */
    volatile boolean known;
    /** Sender-only: true once the topic was in a request (a new topic skips the backoff only before that). */
    boolean asked;
    /** Sender-written: true once the entry left the table (idle expiry); a waiter holding it subscribes anew. */
    volatile boolean removed;
    /** Sender-written: the last error code the brokers gave for the topic (0 = none), and how many times in a row. */
    volatile short lastErrorCode;
    volatile int errorsInARow;
    /** Sender-written: responses that described this topic. */
    volatile int responses;
    /** Sender-written: when (ticker ms) an applied answer last described the topic, or {@link #NEVER_MS}. */
    volatile long refreshedMs = NEVER_MS;
    /**
     * Sender-written: when (ticker ms) an answer first showed that the topic exists (partitions, or its topic id with
     * an error such as LEADER_NOT_AVAILABLE), or {@link #NEVER_MS}. With {@link #unknownSinceMs} and
     * {@link #seenAgainAfterUnknown}: what tells a topic still propagating from one that does not exist.
     */
    volatile long firstSeenMs = NEVER_MS;
    /** Sender-written: when the UNKNOWN_TOPIC_OR_PARTITION answers since the topic was last seen began, or never. */
    volatile long unknownSinceMs = NEVER_MS;
    /** Sender-written: how often an answer showed the topic again after one had called it unknown (brokers disagree). */
    volatile int seenAgainAfterUnknown;

    TopicEntry(String name, long nowNs) {
        this.name = name;
        this.subscribedNs = nowNs;
        this.lastUsedNs = nowNs;
    }

    /** Records a use; writes only when the stamp moved by more than a second. */
    void touch(long nowNs) {
        if (nowNs - lastUsedNs > TOUCH_GRANULARITY_NS) {
            lastUsedNs = nowNs;
        }
    }

    long lastUsedNs() {
        return lastUsedNs;
    }

    void recordError(short errorCode) {
        if (errorCode == 0) {
            errorsInARow = 0;
        } else {
            errorsInARow = lastErrorCode == errorCode ? errorsInARow + 1 : 1;
        }
        lastErrorCode = errorCode;
        responses++;
    }

    /**
     * Records whether an answer showed that the topic exists ({@code seen}) or, with {@code errorCode}
     * UNKNOWN_TOPIC_OR_PARTITION, said it does not, at {@code nowMs}; after {@link #recordError}.
     */
    void recordExistence(boolean seen, short errorCode, long nowMs) {
        if (seen) {
            if (firstSeenMs == NEVER_MS) {
                firstSeenMs = nowMs;
            }
            if (unknownSinceMs != NEVER_MS) {
                seenAgainAfterUnknown++;
                unknownSinceMs = NEVER_MS;
            }
        } else if (errorCode == ResponseMerger.UNKNOWN_TOPIC_OR_PARTITION && firstSeenMs != NEVER_MS
                && unknownSinceMs == NEVER_MS) {
            unknownSinceMs = nowMs;
        }
    }

    /**
     * True when the brokers call the topic unknown now although an answer had shown it: some answer showed it again
     * after one had called it unknown (brokers disagree), or it was first seen at most {@code windowMs} before the
     * first of these unknown answers (created moments ago, not yet on every broker; or deleted as soon as made).
     */
    boolean unknownLooksPropagating(long windowMs) {
        long since = unknownSinceMs;
        return since != NEVER_MS && lastErrorCode == ResponseMerger.UNKNOWN_TOPIC_OR_PARTITION
                && (seenAgainAfterUnknown > 0 || since - firstSeenMs <= windowMs);
    }
}
