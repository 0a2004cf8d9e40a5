package dev.kmeta.producer.internal.network;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One producer's record of the topics it sends to that were deleted and re-created under the same name (issue 27),
 * fed from kmeta's snapshots: the incarnation (topic id, partition count) each topic had when this producer last sent
 * to it, and, once kmeta's snapshot shows a new topic id, the re-creation (old and new id, old and new count).
 *
 * <p>Why a producer needs it: KafkaProducer's built-in partitioner keeps a sticky partition per topic
 * ({@code BuiltInPartitioner.stickyPartitionInfo}) and never checks it against the Cluster it is given; after a
 * re-creation with fewer partitions it may keep appending a record without key to a partition the new topic lacks.
 * That partition's queue has no leader in any metadata, so it is never drained, its last batch stays open, and the
 * open batch disables the switch to another partition until twice {@code batch.size} bytes were appended: the records
 * wait for {@code delivery.timeout.ms}. What kmeta does about it, through kafka-clients' public hooks only:
 * <ul>
 *   <li>{@link #onSend}: while the topic has fewer partitions than this producer ever saw it with, a record the
 *       built-in partitioner would place (no partition; no key, or keys ignored) gets a partition of the new topic
 *       from kmeta, sticky for about {@code batch.size} bytes, among the partitions that have a leader;</li>
 *   <li>{@link #beyondCount}: a record for a partition the re-created topic lacks fails at once with
 *       {@link Diagnosis.Cause#TOPIC_RECREATED} instead of waiting {@code max.block.ms} for partitions;</li>
 *   <li>{@link #onNetworkThread}: the records queued before kmeta saw the re-creation for a partition the new topic
 *       lacks (kafka-clients holds them until {@code delivery.timeout.ms}) fail at once with that diagnosis
 *       ({@link StaleQueues}, the one reach into KafkaProducer's accumulator; not for a transactional producer);
 *       {@link #explain}: where they still expire, the diagnosis is their failure's cause.</li>
 * </ul>
 *
 * <p>Thread-safe. Where it looks: at a topic's first use ({@link #firstUse}), on the producer's network thread once per
 * new snapshot (every topic in use), and on a send only while the network thread has not looked at the snapshot yet,
 * or while one of the producer's topics is re-created with fewer partitions - so a snapshot a send saw is looked at
 * before the records of that send can be drained (the network thread's pass comes first). A send otherwise reads
 * three fields, allocation-free; a re-created topic's steered record allocates its new {@code ProducerRecord}.
 */
public final class Recreations {
    private static final Logger log = LoggerFactory.getLogger(Recreations.class);
    /** A record's size when its value is neither bytes nor text (kmeta does not serialize it here). */
    static final int UNKNOWN_RECORD_BYTES = 64;
    /** Topics this producer saw deleted and re-created (a new id where it knew another). */
    private final java.util.concurrent.atomic.LongAdder recreationsSeen = new java.util.concurrent.atomic.LongAdder();

    /** How many topics this producer saw deleted and re-created. */
    public long recreationsSeen() {
        return recreationsSeen.sum();
    }

    /** A topic's re-creation as this producer saw it. Immutable. */
    static final class Recreation {
        final String topic;
        final UUID oldId;
        final UUID newId;
        final int oldCount;
        final int newCount;

        Recreation(String topic, UUID oldId, UUID newId, int oldCount, int newCount) {
            this.topic = topic;
            this.oldId = oldId;
            this.newId = newId;
            this.oldCount = oldCount;
            this.newCount = newCount;
        }

        Diagnosis diagnosis(int partition) {
            return Diagnosis.topicRecreated(topic, partition, oldId, newId, oldCount, newCount);
        }

        @Override
        public String toString() {
            return "topic " + topic + " re-created: id " + kafkaForm(oldId) + " -> " + kafkaForm(newId)
                    + ", partitions " + oldCount + " -> " + newCount;
        }

        private static String kafkaForm(UUID id) {
            return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits()).toString();
        }
    }

    /** What this producer last saw of a topic. Immutable. */
    private static final class Seen {
        /** The snapshot's entry it was made from (identity: unchanged topics are shared between snapshots). */
        final TopicMetadata entry;
        final UUID id;
        final int count;
        /** The highest partition count of any incarnation this producer saw: its partitioner may stick below it. */
        final int widest;
        /** The last re-creation seen, or null. */
        final Recreation recreation;
        /** Bytes of steered records so far (the sticky choice's clock); shared by the Seen objects of a topic. */
        final AtomicLong steeredBytes;

        Seen(TopicMetadata entry, UUID id, int count, int widest, Recreation recreation, AtomicLong steeredBytes) {
            this.entry = entry;
            this.id = id;
            this.count = count;
            this.widest = widest;
            this.recreation = recreation;
            this.steeredBytes = steeredBytes;
        }
    }

    private final KafkaMetadata metadata;
    private final String logPrefix;
    private final ConcurrentMap<String, Seen> topics = new ConcurrentHashMap<>();
    /** The topics this producer used ({@link #firstUse}), known to kmeta or not yet: what the network thread watches. */
    private final Set<String> used = ConcurrentHashMap.newKeySet();
    private final AtomicInteger usedVersion = new AtomicInteger();
    /** The last snapshot on which the network thread brought every topic in use up to date; null before. */
    private volatile Cluster observedAll;
    /** The re-created topics with fewer partitions than before: their vanished partitions' queues are failed. */
    private final ConcurrentMap<String, Boolean> shrunk = new ConcurrentHashMap<>();
    /**
     * Whether {@link #shrunk} may hold a topic: set before one is put, cleared by the network thread when it found
     * none (a field of this object: a send reads it instead of the map's size).
     */
    private volatile boolean anyShrunk;
    private volatile StaleQueues staleQueues;
    /** Issue 39: the producer's leaderless partitions, looked at on the same network-thread pass; null before set. */
    private volatile LeaderlessPartitions leaderless;
    /** The producer's partitioning: whether kafka-clients' built-in partitioner places keyless records. */
    private volatile boolean builtIn = true;
    private volatile boolean ignoreKeys;
    private volatile int batchSizeBytes = 16_384;

    public Recreations(KafkaMetadata metadata, String logPrefix) {
        this.metadata = metadata;
        this.logPrefix = logPrefix;
    }

    /**
     * The producer's partitioning settings ({@code partitioner.class} set: a custom partitioner, which is given
     * kmeta's Cluster and is not steered; {@code partitioner.ignore.keys}; {@code batch.size}).
     */
    public void partitioning(boolean customPartitioner, boolean partitionerIgnoresKeys, int batchSize) {
        this.builtIn = !customPartitioner;
        this.ignoreKeys = partitionerIgnoresKeys;
        this.batchSizeBytes = Math.max(1, batchSize);
    }

    /** The producer's accumulator access, or null (records of vanished partitions then expire, diagnosed). */
    public void attach(StaleQueues queues) {
        this.staleQueues = queues;
    }

    /** The producer's leaderless partitions (issue 39), run on the same network-thread pass as the stale queues. */
    public void attach(LeaderlessPartitions partitions) {
        this.leaderless = partitions;
    }

    /** The producer's leaderless partitions, or null before {@link #attach(LeaderlessPartitions)}. */
    public LeaderlessPartitions leaderless() {
        return leaderless;
    }

    /**
     * On the producer's network thread, each time round its loop: the records queued for a partition a re-created
     * topic lacks fail now, with TOPIC_RECREATED (kafka-clients would hold them until {@code delivery.timeout.ms}).
     * First, on a snapshot it has not looked at, each topic in use is brought up to it (so that sends on that snapshot
     * need not look: O(topics in use) once per snapshot, here instead of a lookup per send). Then nothing to do, and
     * a map's emptiness read, unless a topic was re-created with fewer partitions.
     */
    public void onNetworkThread() {
        Cluster c = metadata.fetch();
        if (c != observedAll) {
            for (String topic : used) {
                observe(topic, c);
            }
            observedAll = c; // sends on this snapshot need not look: every topic in use was looked at on it
        }
        StaleQueues queues = staleQueues;
        LeaderlessPartitions partitions = leaderless;
        if (partitions != null) {
            partitions.onNetworkThread(queues, used, usedVersion.get()); // issue 39
        }
        if (shrunk.isEmpty() || queues == null) {
            return;
        }
        for (String topic : shrunk.keySet()) {
            Seen s = observe(topic);
            if (s == null || s.recreation == null || s.count >= s.widest) {
                shrunk.remove(topic);
                continue;
            }
            for (int p = s.count; p < s.widest; p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                int batches = queues.fail(tp, failure(s.recreation.diagnosis(p)));
                if (batches > 0) {
                    log.info("{}{} batch(es) queued for {} failed: {}", logPrefix, batches, tp, s.recreation);
                }
            }
        }
        if (shrunk.isEmpty()) {
            anyShrunk = false;
            if (!shrunk.isEmpty()) {
                anyShrunk = true; // a sending thread put one meanwhile (it sets the flag before it puts)
            }
        }
    }

    private static TimeoutException failure(Diagnosis d) {
        return new KafkaMetadataTimeoutException(d.message(), d);
    }

    /**
     * The interceptor's {@code onSend}: notes the topic's incarnation in kmeta's current snapshot, unless this
     * producer's network thread already looked at that snapshot ({@link #onNetworkThread}), and, while the topic is
     * re-created with fewer partitions than this producer saw it with, gives a record the built-in partitioner would
     * place a partition of the new topic. Returns {@code record} itself otherwise. While no topic of this producer is
     * re-created with fewer partitions and the network thread looked at the current snapshot: the snapshot and two
     * flags read, no lookup by name.
     *
     * @param c kmeta's snapshot as the send's caller read it (the one its leader verdict reads too)
     */
    public <K, V> ProducerRecord<K, V> onSend(ProducerRecord<K, V> record, Cluster c) {
        if (c != observedAll) {
            observe(record.topic(), c); // a snapshot the network thread has not looked at: its partitioner may use it
        }
        if (!anyShrunk || record.partition() != null || !builtIn || (record.key() != null && !ignoreKeys)) {
            return record;
        }
        Seen s = observe(record.topic(), c);
        if (s == null || s.recreation == null || s.count >= s.widest) {
            return record;
        }
        int partition = steer(s, record);
        if (partition < 0) {
            return record;
        }
        return new ProducerRecord<>(record.topic(), partition, record.timestamp(), record.key(), record.value(),
                record.headers());
    }

    /**
     * The producer began using {@code topic} (its first {@code add}, or the first since it expired as idle): its
     * incarnation now is noted, and the network thread's passes look at it from now on (re-creations, and the
     * leaderless partitions of issue 39). Not on the per-send path: once per topic use.
     */
    public void firstUse(String topic) {
        if (used.add(topic)) {
            usedVersion.incrementAndGet();
        }
        observe(topic, metadata.fetch());
    }

    /**
     * A send to {@code partition} of {@code topic}, which kmeta's snapshot shows with fewer partitions: kmeta's
     * TOPIC_RECREATED failure when this producer saw the topic re-created with fewer partitions than that, else null
     * (the ordinary wait for partitions to be added).
     */
    public TimeoutException beyondCount(String topic, int partition) {
        Seen s = observe(topic);
        if (s == null || s.recreation == null || partition < s.count || partition >= s.widest) {
            return null;
        }
        return failure(s.recreation.diagnosis(partition));
    }

    /**
     * The diagnosis of a record of {@code topic} kafka-clients gave up on: TOPIC_RECREATED when this producer saw
     * the topic re-created and the record's partition is one the new topic lacks, else null.
     */
    public Diagnosis explain(String topic, int partition) {
        Seen s = observe(topic);
        if (s == null || s.recreation == null || partition < s.count) {
            return null;
        }
        return s.recreation.diagnosis(partition);
    }

    /** The last re-creation of {@code topic} this producer saw, or null. */
    Recreation recreation(String topic) {
        Seen s = observe(topic);
        return s == null ? null : s.recreation;
    }

    /** What this producer knows of {@code topic} now, brought up to kmeta's current snapshot; null if never seen. */
    private Seen observe(String topic) {
        return observe(topic, metadata.fetch());
    }

    /** {@link #observe(String)} on snapshot {@code c}. */
    private Seen observe(String topic, Cluster c) {
        TopicMetadata t = c.topic(topic);
        Seen s = topics.get(topic);
        if (s != null && s.entry == t) {
            return s; // the hit: the snapshot's entry for the topic did not change
        }
        if (t == null || t.topicId() == null || t.partitionCount() == 0) {
            return s; // absent or without an id (deleted, not yet created): nothing to learn
        }
        for (;;) {
            Seen next = next(topic, s, t);
            if (s == null ? topics.putIfAbsent(topic, next) == null : topics.replace(topic, s, next)) {
                if (next.recreation != null && next.count < next.widest) {
                    anyShrunk = true;
                    shrunk.put(topic, Boolean.TRUE);
                }
                return next;
            }
            s = topics.get(topic); // another sending thread moved it; learn from what it saw
            if (s != null && s.entry == t) {
                return s;
            }
        }
    }

    private Seen next(String topic, Seen s, TopicMetadata t) {
        UUID id = t.topicId();
        int count = t.partitionCount();
        if (s == null) {
            return new Seen(t, id, count, count, null, new AtomicLong());
        }
        if (id.equals(s.id)) {
            return new Seen(t, id, Math.max(count, s.count), Math.max(count, s.widest), s.recreation,
                    s.steeredBytes);
        }
        Recreation r = new Recreation(topic, s.id, id, s.count, count);
        recreationsSeen.increment();
        log.info("{}{}: records queued for the old topic's partitions {} and up fail with TOPIC_RECREATED; records "
                + "without key go to the new topic's partitions", logPrefix, r, count);
        return new Seen(t, id, count, Math.max(count, s.widest), r, s.steeredBytes);
    }

    /** A partition of the new topic for a record kafka-clients' partitioner would place: sticky per batch.size. */
    private int steer(Seen s, ProducerRecord<?, ?> record) {
        List<PartitionMetadata> available = s.entry.availablePartitions();
        int n = available.isEmpty() ? s.count : available.size();
        if (n == 0) {
            return -1;
        }
        long slot = s.steeredBytes.getAndAdd(size(record)) / batchSizeBytes;
        int index = (int) Math.floorMod(slot + s.id.getLeastSignificantBits(), (long) n);
        return available.isEmpty() ? index : available.get(index).partition();
    }

    private static int size(ProducerRecord<?, ?> record) {
        Object v = record.value();
        if (v instanceof byte[]) {
            return Math.max(1, ((byte[]) v).length);
        }
        if (v instanceof CharSequence) {
            return Math.max(1, ((CharSequence) v).length());
        }
        return UNKNOWN_RECORD_BYTES;
    }
}
