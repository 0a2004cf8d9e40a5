package dev.kmeta.producer.internal;

import dev.kmeta.metadata.MetadataClient;
import org.apache.kafka.common.errors.TimeoutException;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a sending thread's send in progress through a {@link ProducerBridge} is waiting for: KafkaProducer calls the
 * stand-in's methods in sequence on the sending thread, and the bridge keeps what one call tells the next here, one
 * object per thread. Not thread-safe: confined to its thread. It refers to no bridge, hold or kmeta object (only to counters and
 * strings), so a thread that sent through a producer since closed pins nothing of it.
 */
final class SendIntent {
    /** No awaitUpdate yet. */
    static final int NONE = Integer.MIN_VALUE;
    /**
     * The bridge (its {@link KeptTimeouts}, which stands for it and pins nothing of it) and topic of the last
     * requestUpdateForTopic on this thread (topic null: a version wait).
     */
    KeptTimeouts bridge;
    String topic;
    /** The version of the last awaitUpdate for {@link #topic}: a second call at it means "beyond the count". */
    int awaitedVersion = NONE;
    /**
     * When requestUpdateForTopic was called: KafkaProducer computed the budget it passes to awaitUpdate just before
     * (its {@code sender.wakeup()} in between can wait for the selector's lock), so the wait's deadline counts
     * from here.
     */
    long requestedAtNs;
    /** kmeta's timeout for {@link #topic}, for maybeThrowExceptionForTopic. */
    TimeoutException error;
    /** The topic this thread's fetch() shows: the last one onSend or requestUpdateForTopic named. */
    String viewTopic;
    /** The record the interceptor saw last on this thread. */
    KeptTimeouts sendBridge;
    String sendTopic;
    int sendPartition = MetadataClient.ANY_PARTITION;
    /** When onSend saw it (the send's max.block.ms counts from here, for a held send). */
    long sendStartNs;
    /** The next fetch() of this thread hides the send's topic (onSend, or the wait after the topic arrived). */
    boolean armed;
    /** Then the held send also waits while kmeta has not tried its leaders yet (LeaderHold's settle). */
    boolean settle;
    /** Set by that fetch(): the topic the following add(topic) holds (LeaderHold). */
    String holdTopic;
    /** The counter of pending holds of the LeaderHold that armed this thread (it counts this one), or null. */
    AtomicInteger armedBy;
}
