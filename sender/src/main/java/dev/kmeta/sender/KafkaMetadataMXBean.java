package dev.kmeta.sender;

import java.util.List;
import java.util.Map;

/**
 * The management interface of one kmeta instance: what its metadata looks like and how its sender and waiters are
 * doing, registered on the platform MBeanServer as {@code dev.kmeta:type=metadata,client-id=<client.id>} while the
 * instance runs (see {@link KafkaMetadata#mbeanName()} and docs/metrics.md). Its MBeanInfo describes each attribute
 * with its unit ({@code seconds}, {@code ms}, {@code count}) and meaning, as the methods here are documented.
 *
 * <p>Names follow kmeta's one unit rule (the unit is the last word: {@code RequestLatencyTotalMs},
 * {@code OldestTopicAgeSeconds}), with JMX's {@code get} prefix, which makes the attribute name. Times are in ms or
 * seconds, the units JMX consoles show; {@link MetadataStats} has the same numbers at full precision
 * ({@code waitTimeTotalNs}).
 *
 * <p>Counters count from the instance's start and never go down; "now" values ({@link #getWaitersNow()},
 * {@link #getSubscribedTopics()}, ages) are read at the moment of the call.
 *
 * <p>Thread-safe: every read is a handful of volatile or atomic reads (the maps allocate a new copy), made by the
 * JMX thread while the sender thread writes. Reading never takes a lock the sender or a sending thread holds, and
 * nothing here costs a sending thread anything.
 */
public interface KafkaMetadataMXBean {
    /** The instance's {@code client.id} (of the first creator, for a shared instance). */
    String getClientId();

    /**
     * {@code shared} for the instance {@code KafkaMetadata.shared} (and so {@code KmetaProducer}) shares among the
     * users of one cluster and security identity - its {@link #getClientId()} is its first user's, its logs carry that
     * id only - else {@code private}.
     */
    String getSharing();

    /**
     * The {@code client.id} of each open handle on the instance, in the order they came (a shared instance's
     * producers and other users; a private one's creator alone).
     */
    List<String> getUsers();

    /**
     * Seconds (with ms precision) since the last successful refresh of every subscribed topic: the last applied
     * answer to a full request (the first request, {@code requestUpdate()}, {@code metadata.max.age.ms}). Answers
     * for new or invalidated topics only do not reset it - the meaning of kafka-clients' producer
     * {@code metadata-age}. So no subscribed topic's metadata is older than this. Before the first full answer: the
     * seconds since the instance started (never seconds since the epoch).
     */
    double getMetadataAgeSeconds();

    /**
     * Per subscribed topic, seconds (with ms precision) since an applied answer last described it, full or partial.
     * Topics no answer described yet (e.g. unknown to the brokers so far) are absent. A new map each read.
     */
    Map<String, Double> getTopicAgesSeconds();

    /**
     * Seconds (with ms precision) since an applied answer last described {@code topic}; -1 when the topic is not
     * subscribed or no answer described it yet.
     */
    double topicAgeSeconds(String topic);

    /**
     * The version of the current snapshot (a count): 0 before the first answer, then one more for every new snapshot
     * (each answer applied, each batch of leader hints applied, each sweep that expired idle topics).
     */
    int getVersion();

    /** The refresh state: {@code STABLE}, {@code NEED_UPDATE}, {@code IN_FLIGHT} or {@code CLOSED}. */
    String getState();

    /** Metadata requests sent (count). */
    long getRequestsSent();

    /** Metadata requests that failed: disconnected, timed out, or answered unusably (count). */
    long getRequestsFailed();

    /**
     * Requests for an update that were folded into one already pending, so sent no request of their own (count):
     * single flight at work.
     */
    long getRequestsCoalesced();

    /** Answers applied to the snapshot (count); the denominator of {@link #getRequestLatencyAvgMs()}. */
    long getResponsesApplied();

    /** Sum of the latencies of applied answers, request sent to answer applied (ms). */
    long getRequestLatencyTotalMs();

    /** Average latency of an applied answer since start (ms); 0 before the first. */
    double getRequestLatencyAvgMs();

    /** Largest latency of an applied answer since start (ms). */
    long getRequestLatencyMaxMs();

    /** Application threads inside {@code awaitTopic} / {@code awaitUpdate} waiting for metadata right now (count). */
    long getWaitersNow();

    /** Total time application threads spent waiting for metadata, all waits together (ms). */
    long getWaitTimeTotalMs();

    /** Waits that ended in a timeout (count), whatever the cause. */
    long getWaitTimeouts();

    /**
     * Waits that ended in a timeout, by the cause the diagnosis named (a {@code Diagnosis.Cause} name to a count);
     * every cause is present, zeros included. A new map each read.
     */
    Map<String, Long> getWaitTimeoutsByCause();

    /** Partitions whose leader epoch in an answer was older than the cached one, so not applied (count, KIP-320). */
    long getStaleEpochsRejected();

    /** KIP-951 leader hints from produce responses applied to the snapshot (count). */
    long getLeaderHintsApplied();

    /** Times the sender dropped the brokers it learned and went back to the bootstrap addresses (count). */
    long getRebootstraps();

    /**
     * Times a broker refused the cluster id and node id kmeta sent with ApiVersions (KIP-1242, kafka-clients 4.4),
     * each followed by a rebootstrap (count): an address that leads to another broker or cluster.
     */
    long getMisroutedConnections();

    /** Times {@code bootstrap.resolve.timeout.ms} passed with no bootstrap name resolving (count, KIP-909). */
    long getBootstrapResolveTimeouts();

    /** Topics subscribed right now (count): asked for and not yet expired by {@code metadata.max.idle.ms}. */
    int getSubscribedTopics();

    /**
     * Refreshes asked by the staleness target ({@code kmeta.metadata.max.staleness.ms}) because subscribed topics were
     * older than it (count); 0 while the target is off.
     */
    long getStaleRefreshes();

    /**
     * Seconds (with ms precision) since an answer last described the oldest subscribed topic: the largest of
     * {@link #getTopicAgesSeconds()}, one number to alert on; -1 when no subscribed topic was described yet.
     */
    double getOldestTopicAgeSeconds();
}
