package dev.kmeta.producer.internal.network;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 39: one producer's partitions without a leader, named within the budget, and the user's choice of what
 * happens to their records ({@value #KEY}).
 *
 * <ul>
 *   <li>{@link Mode#HOLD} (default, kafka-clients' semantics): the records stay queued until
 *       {@code delivery.timeout.ms}; while some are queued for a partition without a leader, one WARN names it (its
 *       replicas, the offline ones, how long it has been without a leader as kmeta saw it, and that the records
 *       queue until {@code delivery.timeout.ms}) - at once, then once per window, the window doubling from
 *       {@code max.block.ms} up to {@code delivery.timeout.ms}: one line per partition per window, not per record.
 *       When records of it expire, one WARN names the partition, the cause and how many expired.</li>
 *   <li>{@link Mode#FAIL}: the records queued for a partition without a leader whose <em>every</em> replica is on a
 *       broker the cluster reports offline fail at once (on the producer's network thread, within a poll of the
 *       send) with kmeta's LEADER_NOT_AVAILABLE diagnosis as a {@link KafkaMetadataTimeoutException}; one WARN per
 *       partition per window says how many. A partition with a replica alive (an election) is held as in HOLD.
 *       Records without key go to partitions with a leader already (kafka-clients' built-in partitioner). Needs the
 *       producer's accumulator ({@link StaleQueues}): a transactional producer holds, as in HOLD.</li>
 * </ul>
 *
 * <p>The topics looked at are the ones this producer uses ({@link Recreations#firstUse}: nothing on the per-send path);
 * a topic's partitions are re-read only when kmeta published a snapshot in which its entry changed. Thread-safety:
 * {@link #onNetworkThread} and {@link #expired} on the producer's network thread; {@link #now()} on any.
 */
public final class LeaderlessPartitions {
    private static final Logger log = LoggerFactory.getLogger(LeaderlessPartitions.class);
    /** The route's key: {@code hold} (default) or {@code fail}. */
    public static final String KEY = "kmeta.producer.leaderless.partition";

    /** What happens to records for a partition without a leader. */
    public enum Mode {
        HOLD, FAIL;

        public static Mode of(Object value) {
            if (value == null) {
                return HOLD;
            }
            String s = value.toString().trim().toLowerCase(Locale.ROOT);
            if (s.equals("hold")) {
                return HOLD;
            }
            if (s.equals("fail")) {
                return FAIL;
            }
            throw new ConfigException(KEY, value, "must be hold or fail");
        }
    }

    /** One partition without a leader, as this producer saw it. Network thread only. */
    private static final class Leaderless {
        final long sinceMs;
        long nextWarnMs;
        long windowMs;
        long expired;
        long failedBatches;

        Leaderless(long sinceMs, long windowMs) {
            this.sinceMs = sinceMs;
            this.nextWarnMs = Long.MIN_VALUE;
            this.windowMs = windowMs;
        }
    }

    private final KafkaMetadata metadata;
    private final Mode mode;
    private final long maxBlockMs;
    private final long deliveryTimeoutMs;
    private final String logPrefix;
    private final Map<TopicPartition, Leaderless> leaderless = new ConcurrentHashMap<>();
    private final AtomicLong failedRecords = new AtomicLong();
    /** Network thread only: the last snapshot and set of topics in use looked at, and each topic's entry in it. */
    private Cluster seen;
    private int seenTopicsVersion = -1;
    private final Map<String, TopicMetadata> entries = new java.util.HashMap<>();

    public LeaderlessPartitions(KafkaMetadata metadata, Mode mode, long maxBlockMs, long deliveryTimeoutMs,
                         String logPrefix) {
        this.metadata = metadata;
        this.mode = mode;
        this.maxBlockMs = Math.max(1, maxBlockMs);
        this.deliveryTimeoutMs = Math.max(this.maxBlockMs, deliveryTimeoutMs);
        this.logPrefix = logPrefix;
    }

    Mode mode() {
        return mode;
    }

    /**
     * This producer's partitions without a leader now, each with how long (ms) it has been without one as this
     * producer saw it (from kmeta's snapshots); for stats and health. Any thread.
     */
    Map<String, Long> now() {
        long nowMs = metadata.ticker().milliTime();
        Map<String, Long> out = new java.util.TreeMap<>();
        leaderless.forEach((tp, l) -> out.put(tp.toString(), nowMs - l.sinceMs));
        return out;
    }

    /** Batches failed at once in {@link Mode#FAIL}, for tests and stats. */
    long failedBatches() {
        return failedRecords.get();
    }

    /**
     * The producer's network thread, each time round its loop: notes the partitions that lost or regained a leader
     * in a new snapshot, then, for each one without a leader, fails its queue (FAIL, every replica offline) or warns
     * (once per window, while records are queued), and reports expiries. A field read and a map's emptiness read
     * when nothing changed and every partition has a leader.
     *
     * @param topics        the topics the producer uses ({@link Recreations#firstUse}), a live set
     * @param topicsVersion moves when a topic joins {@code topics}: a new one is looked at without a new snapshot
     */
    void onNetworkThread(StaleQueues queues, Iterable<String> topics, int topicsVersion) {
        Cluster c = metadata.fetch();
        long nowMs = metadata.ticker().milliTime();
        if (c != seen || topicsVersion != seenTopicsVersion) {
            seen = c;
            seenTopicsVersion = topicsVersion;
            rescan(c, nowMs, topics);
        }
        if (leaderless.isEmpty()) {
            return;
        }
        for (Map.Entry<TopicPartition, Leaderless> e : leaderless.entrySet()) {
            TopicPartition tp = e.getKey();
            Leaderless l = e.getValue();
            PartitionMetadata p = partition(c, tp);
            if (p == null) {
                continue;
            }
            if (mode == Mode.FAIL && queues != null && p.everyReplicaOffline()) {
                Diagnosis d = metadata.diagnose(tp.topic(), tp.partition());
                int batches = d == null ? 0 : queues.fail(tp, new KafkaMetadataTimeoutException(tp + ": no leader "
                        + "and every replica offline (" + KEY + "=fail): " + d.cause() + ": " + d.seen() + ". Fix: "
                        + d.fix(), d));
                if (batches > 0) {
                    failedRecords.addAndGet(batches);
                    l.failedBatches += batches;
                    if (nowMs >= l.nextWarnMs) {
                        log.warn("{}{}: no leader, {}: {} batch(es) failed at once ({}=fail; {} so far): {}",
                                logPrefix, tp, replicas(p), batches, KEY, l.failedBatches, d.seen());
                        nextWindow(l, nowMs);
                    }
                }
            } else if (queues != null && queues.queued(tp) && nowMs >= l.nextWarnMs) {
                log.warn("{}{}: no leader, {}, for {}; records queue until delivery.timeout.ms ({} s){}",
                        logPrefix, tp, replicas(p), duration(nowMs - l.sinceMs), deliveryTimeoutMs / 1_000,
                        mode == Mode.HOLD && p.everyReplicaOffline() ? " (" + KEY + "=fail fails them at once)" : "");
                nextWindow(l, nowMs);
            }
            if (l.expired > 0) {
                Diagnosis d = metadata.diagnose(tp.topic(), tp.partition());
                log.warn("{}{}: {} record(s) expired after delivery.timeout.ms ({} s): {}", logPrefix, tp, l.expired,
                        deliveryTimeoutMs / 1_000, d == null ? "no leader, " + replicas(p) : d.message());
                l.expired = 0;
            }
        }
    }

    /**
     * kafka-clients gave up on a record of {@code topic}-{@code partition} (its own TimeoutException, e.g. at
     * {@code delivery.timeout.ms}): counted for the partition's expiry WARN, if it has no leader. Network thread.
     */
    public void expired(String topic, int partition) {
        Leaderless l = leaderless.get(new TopicPartition(topic, partition));
        if (l != null) {
            l.expired++;
        }
    }

    private void rescan(Cluster c, long nowMs, Iterable<String> topics) {
        Map<String, Long> seenFor = null; // the instance handle's view (stats and health), read when one is new
        for (String topic : topics) {
            TopicMetadata t = c.topic(topic);
            if (t == null || entries.get(topic) == t) {
                continue; // unchanged topics are shared between snapshots: nothing to look at again
            }
            entries.put(topic, t);
            for (int i = 0; i < t.partitionCount(); i++) {
                PartitionMetadata p = t.partition(i);
                boolean none = p == null || !p.hasLeader() || c.node(p.leaderId()) == null;
                if (none) {
                    TopicPartition tp = new TopicPartition(topic, i);
                    if (!leaderless.containsKey(tp)) {
                        if (seenFor == null) {
                            seenFor = metadata.leaderlessPartitions();
                        }
                        leaderless.put(tp, new Leaderless(nowMs - seenFor.getOrDefault(tp.toString(), 0L),
                                maxBlockMs));
                    }
                } else if (!leaderless.isEmpty()) {
                    Leaderless was = leaderless.remove(new TopicPartition(topic, i));
                    if (was != null && was.nextWarnMs != Long.MIN_VALUE) { // it was named: say it is over
                        log.info("{}{}-{}: leader {} after {} without one", logPrefix, topic, i, p.leaderId(),
                                duration(nowMs - was.sinceMs));
                    }
                }
            }
        }
    }

    private void nextWindow(Leaderless l, long nowMs) {
        l.nextWarnMs = nowMs + l.windowMs;
        l.windowMs = Math.min(deliveryTimeoutMs, l.windowMs * 2);
    }

    private static PartitionMetadata partition(Cluster c, TopicPartition tp) {
        TopicMetadata t = c.topic(tp.topic());
        return t == null ? null : t.partition(tp.partition());
    }

    private static String duration(long ms) {
        return ms < 10_000 ? ms + " ms" : ms / 1_000 + " s";
    }

    private static String replicas(PartitionMetadata p) {
        if (p.replicaCount() == 1) {
            return "its only replica, broker " + p.replica(0) + (p.offlineReplicaCount() > 0 ? ", offline" : "");
        }
        return "replicas " + Arrays.toString(p.replicas()) + ", offline " + Arrays.toString(p.offlineReplicas());
    }
}
