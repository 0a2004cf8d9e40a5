package dev.kmeta.examples;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.sender.KafkaMetadata;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidMetadataException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.LeaderIdAndEpoch;
import org.apache.kafka.common.message.ProduceResponseData.NodeEndpoint;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The producer's one network thread: it takes the records {@code send()} accepted, sends each partition's records to
 * the partition's leader as kmeta's snapshot names it, and handles the answers - acks, leader hints (KIP-951),
 * invalidations, retries and delivery timeouts. Its {@code client.poll} also runs kmeta (driven mode): metadata
 * requests go out and answers are applied on this thread.
 *
 * <p>Confined to the network thread, except {@link #enqueue}, {@link #beginClose} and {@link #stop} (any thread).
 * The records' futures complete here, inside {@code client.poll}: their callbacks run on this thread.
 */
final class NetworkLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(NetworkLoop.class);
    private static final long MAX_POLL_MS = 1_000;
    /** The first backoff before a leader that has not yet learned it leads gets the batch again; doubles after. */
    static final long LAGGING_LEADER_BACKOFF_MS = 10;
    static final int FAILOVERS_KEPT = 64;
    /** How often, at most, kmeta is asked about the leader of a partition whose records wait for a connection. */
    static final long LEADER_CHECK_INTERVAL_MS = 50;

    private final KafkaClient client;
    private final Metrics metrics;
    private final KafkaMetadata metadata;
    private final ProducerSettings settings;
    private final int requestTimeoutMs;
    private final long retryBackoffMs;
    private final long maxBlockMs;
    private final Semaphore buffer;
    private final ProducerStats stats;
    private final Time time;
    private final Queue<PendingRecord> incoming = new ConcurrentLinkedQueue<>();
    private final Map<String, List<PartitionQueue>> queues = new HashMap<>(); // by topic, then partition index
    private final Deque<ExampleProducer.Failover> failovers = new ConcurrentLinkedDeque<>();
    private int failoverCount; // written by the network thread only
    private long passes; // loop passes, for the failover timelines
    private volatile boolean closing;
    private volatile boolean stopped;
    private volatile String stopReason = "The producer closed before the record was acknowledged";

    NetworkLoop(KafkaClient client, Metrics metrics, KafkaMetadata metadata, ProducerSettings settings,
                Semaphore buffer, ProducerStats stats, Time time) {
        this.client = client;
        this.time = time;
        this.metrics = metrics;
        this.metadata = metadata;
        this.settings = settings;
        this.requestTimeoutMs = metadata.config().requestTimeoutMs();
        this.retryBackoffMs = metadata.config().retryBackoffMs();
        this.maxBlockMs = metadata.config().maxBlockMs();
        this.buffer = buffer;
        this.stats = stats;
    }

    /** True while the client is open (not yet closed); for tests (any thread). */
    boolean clientActive() {
        return client.active();
    }

    /** The last {@value #FAILOVERS_KEPT} failovers, oldest first (any thread). */
    List<ExampleProducer.Failover> failovers() {
        return List.copyOf(failovers);
    }

    /** Hands a record to the network thread (any thread). */
    void enqueue(PendingRecord record) {
        incoming.add(record);
        client.wakeup();
        if (stopped) {
            failIncoming(new IllegalStateException("The producer is closed"));
        }
    }

    /** Accept no more records; the loop ends once every record it has is acked or failed. */
    void beginClose() {
        closing = true;
        client.wakeup();
    }

    /** End the loop now, whatever it still holds (it then fails it: {@link #release}). */
    void stop() {
        stopped = true;
        client.wakeup();
    }

    /** {@link #stop()}, failing what is left with {@code why} (and each partition's diagnosis) as the message. */
    void stop(String why) {
        stopReason = why;
        stop();
    }

    @Override
    public void run() {
        try {
            while (!stopped && !(closing && isIdle())) {
                try {
                    runOnce();
                } catch (RuntimeException e) {
                    log.error("unexpected error in the producer's network thread; going on", e);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(retryBackoffMs)); // no hot loop of errors
                }
            }
        } finally {
            stopped = true;
            release();
        }
    }

    /**
     * After the loop, on this thread (so never beside a poll or a callback still running): closes kmeta (releasing
     * its waiters), fails what is left, closes the connections and the metrics.
     */
    private void release() {
        try {
            failEverything(stopReason); // before kmeta closes: each partition's diagnosis goes with its records
            metadata.close();
        } finally {
            closeClient();
            metrics.close();
        }
    }

    private void closeClient() {
        try {
            client.close();
        } catch (java.io.IOException e) { // KafkaClient is Closeable; NetworkClient's close throws nothing
            log.warn("closing the network client failed", e);
        }
    }

    /** Fails what is left after the loop ended: accepted, waiting or in flight. */
    private void failEverything(String why) {
        failIncoming(RecordFailures.closed(why, null, null));
        for (List<PartitionQueue> topic : queues.values()) {
            for (PartitionQueue q : topic) {
                List<PendingRecord> left = q.drainAll();
                if (!left.isEmpty()) {
                    fail(left, RecordFailures.closed(why, q, diagnosis(q)));
                }
            }
        }
    }

    /** kmeta's diagnosis of the partition, or null (fine, or kmeta closed meanwhile). */
    private Diagnosis diagnosis(PartitionQueue q) {
        return diagnosis(q, false);
    }

    /** kmeta's reason a record of the partition expired (never null while kmeta is open), or null if closed. */
    private Diagnosis undelivered(PartitionQueue q) {
        return diagnosis(q, true);
    }

    private Diagnosis diagnosis(PartitionQueue q, boolean expired) {
        try {
            return expired ? metadata.diagnoseUndelivered(q.topic, q.partition) : metadata.diagnose(q.topic, q.partition);
        } catch (RuntimeException e) {
            log.debug("no diagnosis for {}-{}", q.topic, q.partition, e);
            return null;
        }
    }

    /** One pass: take new records, expire, send what may go, poll (package-private: tests drive it). */
    void runOnce() {
        passes++;
        long nowMs = time.milliseconds();
        takeIncoming();
        expire(nowMs);
        long pollMs = sendReady(nowMs);
        client.poll(pollMs, nowMs); // also kmeta's turn: its requests, its answers, leader hints
    }

    private void takeIncoming() {
        for (PendingRecord r = incoming.poll(); r != null; r = incoming.poll()) {
            queueFor(r.topic, r.partition).add(r);
        }
    }

    private PartitionQueue queueFor(String topic, int partition) {
        List<PartitionQueue> partitions = queues.computeIfAbsent(topic, t -> new ArrayList<>());
        while (partitions.size() <= partition) {
            partitions.add(new PartitionQueue(topic, partitions.size()));
        }
        return partitions.get(partition);
    }

    private boolean isIdle() {
        if (!incoming.isEmpty()) {
            return false;
        }
        for (List<PartitionQueue> topic : queues.values()) {
            for (PartitionQueue q : topic) {
                if (!q.isEmpty()) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Fails the waiting records past their delivery timeout (with their partition's diagnosis), and those whose
     * leader's advertised address never accepted a connection for their send's {@code max.block.ms}.
     */
    private void expire(long nowMs) {
        for (List<PartitionQueue> topic : queues.values()) {
            for (PartitionQueue q : topic) {
                List<PendingRecord> expired = q.expire(nowMs);
                if (!expired.isEmpty()) {
                    fail(expired, RecordFailures.expired(q, expired.size(), settings.deliveryTimeoutMs(),
                            undelivered(q)));
                }
                List<PendingRecord> unsendable = q.expireUnreachable(nowMs, maxBlockMs);
                if (!unsendable.isEmpty()) {
                    fail(unsendable, RecordFailures.unreachableLeader(q, unsendable.size(), maxBlockMs,
                            q.unreachableDiagnosis()));
                }
                if ((!expired.isEmpty() || !unsendable.isEmpty()) && q.isEmpty()) {
                    q.trace = null; // nothing left to fail over
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ sending

    /**
     * Sends, to every ready leader, one produce request with the head batch of each partition it leads that may go
     * now. Returns how long to poll: briefly when records wait (for a connection, a leader, a backoff), else long
     * (a new record wakes the client).
     */
    private long sendReady(long nowMs) {
        Cluster cluster = metadata.fetch(); // one volatile read: the snapshot this pass works from
        Map<Node, List<ProduceBatch>> byLeader = new LinkedHashMap<>();
        long pollMs = MAX_POLL_MS;
        for (List<PartitionQueue> topic : queues.values()) {
            for (PartitionQueue q : topic) {
                ProduceBatch batch = nextBatch(cluster, q, nowMs);
                if (batch != null) {
                    byLeader.computeIfAbsent(batch.leader, n -> new ArrayList<>()).add(batch);
                } else if (q.hasWaitingRecords()) {
                    pollMs = Math.min(pollMs, waitMs(q, nowMs));
                }
            }
        }
        byLeader.forEach((leader, batches) -> send(leader, batches, nowMs));
        return pollMs;
    }

    /**
     * How long the loop may poll for a partition whose records wait: until its retry backoff ends, if it is backing
     * off (not a full {@code retry.backoff.ms} from now: the loop may be woken, by another answer, long after the
     * failure); else (waiting for a leader, a connection or a newer snapshot - each of which ends the poll by itself)
     * {@code retry.backoff.ms} at most, as a safety net.
     */
    private long waitMs(PartitionQueue q, long nowMs) {
        long backoffLeftMs = q.backoffLeftMs(nowMs);
        long waitMs = backoffLeftMs > 0 ? backoffLeftMs : Math.max(1, retryBackoffMs);
        long unreachableLeftMs = q.unreachableDeadlineMs(maxBlockMs);
        return unreachableLeftMs == Long.MAX_VALUE ? waitMs : Math.max(1, Math.min(waitMs, unreachableLeftMs - nowMs));
    }

    /** The partition's next batch if it may go now to a leader that is ready; null otherwise. */
    private ProduceBatch nextBatch(Cluster cluster, PartitionQueue q, long nowMs) {
        Node leader = leaderNode(cluster, q.topic, q.partition);
        if (q.trace != null && q.hasWaitingRecords()) {
            q.trace.leaderInSnapshot(time.nanoseconds(), leader == null ? -1 : leader.id(), cluster.version(),
                    metadata.stats(), passes);
        }
        if (leader == null) {
            q.leaderReachable();
            if (closing && q.hasWaitingRecords()) {
                failIfVanished(q, nowMs);
            }
            return null; // no leader now: kmeta refreshes leaderless partitions by itself
        }
        if (!q.sendableTo(leader.id(), cluster.version(), nowMs)) {
            return null; // a batch in flight, or a retry backing off (or waiting for news of a stale leader)
        }
        if (!client.ready(leader, nowMs)) {
            if (q.trace != null) {
                q.trace.notReady(time.nanoseconds(), leader.id());
            }
            checkLeader(q, leader, nowMs);
            return null; // connecting (ready() starts the connection)
        }
        q.leaderReachable();
        if (q.trace != null) {
            q.trace.sent(time.nanoseconds(), leader.id());
        }
        return new ProduceBatch(q, q.drain(settings.batchSizeBytes()), leader, topicId(cluster, q.topic));
    }

    /**
     * Records wait for a connection to the leader: asks kmeta (at most every {@value #LEADER_CHECK_INTERVAL_MS} ms)
     * whether that leader's advertised address ever accepted one. While kmeta says ADVERTISED_LISTENER_UNREACHABLE
     * the records' time runs as in a metadata wait ({@link #expire}); any other answer, or a leader move, ends that.
     */
    private void checkLeader(PartitionQueue q, Node leader, long nowMs) {
        if (nowMs < q.nextLeaderCheckMs) {
            return;
        }
        q.nextLeaderCheckMs = nowMs + LEADER_CHECK_INTERVAL_MS;
        Diagnosis d = diagnosis(q);
        if (d != null && d.cause() == Diagnosis.Cause.ADVERTISED_LISTENER_UNREACHABLE) {
            q.leaderUnreachable(leader.id(), d, nowMs);
        } else {
            q.leaderReachable();
        }
    }

    /**
     * While closing: the waiting records of a partition kmeta says no longer exists (topic deleted, partition beyond
     * the count) cannot be sent within any timeout, so they fail now instead of holding close() to its bound.
     */
    private void failIfVanished(PartitionQueue q, long nowMs) {
        if (nowMs < q.nextLeaderCheckMs) {
            return;
        }
        q.nextLeaderCheckMs = nowMs + LEADER_CHECK_INTERVAL_MS;
        Diagnosis d = diagnosis(q);
        if (d != null && (d.cause() == Diagnosis.Cause.TOPIC_NOT_FOUND
                || d.cause() == Diagnosis.Cause.PARTITION_OUT_OF_RANGE)) {
            fail(q.drainWaiting(), RecordFailures.closed("The producer closed and the record's partition no longer "
                    + "exists", q, d));
        } else if (d != null && d.cause() == Diagnosis.Cause.TOPIC_PROPAGATING) {
            // Seen moments ago, unknown now: deleted, or not yet on the broker asked; close does not wait for it.
            fail(q.drainWaiting(), RecordFailures.closed("The producer closed and the brokers call the record's "
                    + "topic unknown", q, d));
        }
    }

    private void send(Node leader, List<ProduceBatch> batches, long nowMs) {
        short acks = settings.acks();
        ClientRequest request = client.newClientRequest(leader.idString(),
                ProduceBatch.request(batches, acks, requestTimeoutMs), nowMs, acks != 0, requestTimeoutMs,
                response -> onResponse(response, batches));
        client.send(request, nowMs);
    }

    /** The partition's leader in kmeta's snapshot as kafka-clients' {@link Node} (id, host, port); null if none. */
    private static Node leaderNode(Cluster cluster, String topic, int partition) {
        dev.kmeta.cluster.Node n = cluster.leader(topic, partition);
        return n == null ? null : new Node(n.id(), n.host(), n.port(), n.rack());
    }

    private static Uuid topicId(Cluster cluster, String topic) {
        UUID id = cluster.topicId(topic);
        return id == null ? Uuid.ZERO_UUID : new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    // ------------------------------------------------------------------------------------------------ answers

    /** Runs inside {@code client.poll}, on this thread. */
    private void onResponse(ClientResponse response, List<ProduceBatch> batches) {
        long nowMs = time.milliseconds();
        if (response.versionMismatch() != null) {
            batches.forEach(b -> failBatch(b, response.versionMismatch()));
        } else if (response.wasDisconnected()) {
            // The leader went away (or did not answer within request.timeout.ms): doubt it, and retry.
            batches.forEach(b -> {
                traceFailure(b, response.wasTimedOut() ? "no answer within request.timeout.ms" : "disconnected");
                invalidate(b);
                retryOnNewMetadata(b, nowMs);
            });
        } else if (!response.hasResponse()) {
            batches.forEach(b -> ackBatch(b, -1)); // acks=0: no answer, no offsets
        } else {
            onProduceResponse(((ProduceResponse) response.responseBody()).data(), batches, nowMs);
        }
    }

    private void onProduceResponse(ProduceResponseData data, List<ProduceBatch> batches, long nowMs) {
        Set<ProduceBatch> answered = Collections.newSetFromMap(new IdentityHashMap<>());
        for (TopicProduceResponse topic : data.responses()) {
            for (PartitionProduceResponse p : topic.partitionResponses()) {
                ProduceBatch b = ProduceBatch.find(batches, topic, p.index());
                if (b != null && answered.add(b)) {
                    onPartitionResponse(b, p, data, nowMs);
                }
            }
        }
        for (ProduceBatch b : batches) {
            if (!answered.contains(b)) {
                traceFailure(b, "no answer for the partition");
                retry(b, nowMs); // the broker said nothing about it
            }
        }
    }

    private void onPartitionResponse(ProduceBatch b, PartitionProduceResponse p, ProduceResponseData data,
                                     long nowMs) {
        Errors error = Errors.forCode(p.errorCode());
        if (error == Errors.NONE) {
            ackBatch(b, p.baseOffset());
        } else if (!(error.exception() instanceof RetriableException)) {
            failBatch(b, error.exception(p.errorMessage()));
        } else if (error.exception() instanceof InvalidMetadataException) {
            LeaderIdAndEpoch hint = p.currentLeader();
            traceFailure(b, error + (hint != null && hint.leaderId() >= 0 ? " (hint: leader " + hint.leaderId()
                    + ", epoch " + hint.leaderEpoch() + ")" : " (no hint)"));
            if (isLaggingLeader(metadata.fetch(), b, hint)) {
                retryLaggingLeader(b, nowMs);
            } else {
                onStaleLeader(b, error, hint, data);
                retryOnNewMetadata(b, nowMs);
            }
        } else {
            traceFailure(b, error.toString());
            retry(b, nowMs);
        }
    }

    /**
     * The leader kmeta named is not (or no longer) the leader. With a KIP-951 hint (the current leader and its
     * endpoint), kmeta takes the new leader at once; without one, kmeta refreshes the partition.
     */
    private void onStaleLeader(ProduceBatch b, Errors error, LeaderIdAndEpoch hint, ProduceResponseData data) {
        boolean hintable = error == Errors.NOT_LEADER_OR_FOLLOWER || error == Errors.LEADER_NOT_AVAILABLE
                || error == Errors.FENCED_LEADER_EPOCH;
        if (hintable && hint != null && hint.leaderId() >= 0 && hint.leaderEpoch() >= 0
                && isNews(metadata.fetch(), b.queue.topic, b.queue.partition, hint.leaderEpoch())) {
            metadata.onLeaderHint(b.queue.topic, b.queue.partition, hint.leaderId(), hint.leaderEpoch(),
                    endpoint(data, hint.leaderId()));
            stats.leaderHints.increment();
        } else {
            invalidate(b);
        }
    }

    /**
     * True if the broker that refused is the leader our newest snapshot names, and its hint is not newer than that
     * snapshot: the broker has not yet applied the election we already know of (a new leader learns it leads a few
     * ms after the old one stops; P8 saw it in 2 of 9 clean stops). Our metadata is right, so neither a hint nor a
     * newer snapshot would change where the batch goes: only the broker catching up will.
     */
    static boolean isLaggingLeader(Cluster snapshot, ProduceBatch b, LeaderIdAndEpoch hint) {
        if (hint == null || hint.leaderId() < 0 || hint.leaderEpoch() < 0) {
            return false;
        }
        PartitionMetadata p = snapshot.partition(b.queue.topic, b.queue.partition);
        return p != null && p.leaderId() == b.leader.id() && !isNews(snapshot, b.queue.topic, b.queue.partition,
                hint.leaderEpoch());
    }

    /**
     * A retry to a leader that has not yet learned it leads ({@link #isLaggingLeader}): after a short backoff that
     * doubles with each such refusal in a row ({@value #LAGGING_LEADER_BACKOFF_MS} ms, 20, 40... up to
     * {@code retry.backoff.ms}), not the whole {@code retry.backoff.ms} that a leader refusing for no known reason
     * gets - the only client-side time P8 still measured. kmeta is asked to refresh the partition all the same, in
     * case our snapshot is the one that is behind.
     */
    private void retryLaggingLeader(ProduceBatch b, long nowMs) {
        invalidate(b);
        stats.retries.increment();
        int refusals = b.queue.laggingLeaderRefusal();
        long backoffMs = Math.min(retryBackoffMs, LAGGING_LEADER_BACKOFF_MS << Math.min(refusals - 1, 20));
        b.queue.retry(b.records, b.leader.id(), nowMs + backoffMs);
    }

    /**
     * True if a hint of this epoch is newer than what the snapshot knows of the partition. kmeta ignores an older or
     * equal one (and refreshes nothing for it): a broker that refuses with such a hint lags behind our metadata (a
     * new leader that has not yet learned it leads). Then only a refresh makes the newer snapshot that the retry
     * waits for ({@link #retryOnNewMetadata}); without it the partition would wait for an unrelated change, up to
     * {@code metadata.max.age.ms}, past its delivery timeout.
     */
    static boolean isNews(Cluster snapshot, String topic, int partition, int hintEpoch) {
        PartitionMetadata p = snapshot.partition(topic, partition);
        return p == null || !p.hasLeaderEpochAtLeast(hintEpoch);
    }

    private static dev.kmeta.cluster.Node endpoint(ProduceResponseData data, int nodeId) {
        NodeEndpoint e = data.nodeEndpoints().find(nodeId);
        return e == null ? null : new dev.kmeta.cluster.Node(e.nodeId(), e.host(), e.port(), e.rack());
    }

    private void invalidate(ProduceBatch b) {
        metadata.invalidate(b.queue.topic, b.queue.partition);
        stats.invalidations.increment();
    }

    private void retry(ProduceBatch b, long nowMs) {
        stats.retries.increment();
        b.queue.retry(b.records, b.leader.id(), nowMs + retryBackoffMs); // the delivery timeout still applies
    }

    /**
     * A retry after the leader was found stale (refused, or gone): the hint or invalidation just posted to kmeta is
     * applied in the next poll, so until a snapshot newer than this one is out, the same leader does not get the
     * batch again, however long this thread was descheduled (every applied answer or hint makes a new version).
     */
    private void retryOnNewMetadata(ProduceBatch b, long nowMs) {
        stats.retries.increment();
        b.queue.retry(b.records, b.leader.id(), nowMs + retryBackoffMs, metadata.fetch().version());
    }

    // ------------------------------------------------------------------------------------------------ completion

    private void ackBatch(ProduceBatch b, long baseOffset) {
        b.queue.completed();
        long nowNs = time.nanoseconds();
        if (b.queue.trace != null) {
            keep(b.queue.trace.acked(nowNs, b.leader.id()));
            b.queue.trace = null;
        }
        b.queue.lastAckNs = nowNs;
        for (int i = 0; i < b.records.size(); i++) {
            PendingRecord r = b.records.get(i);
            if (r.finish()) {
                stats.acked.increment();
                buffer.release();
                r.future.complete(new ExampleProducer.Ack(r.topic, r.partition,
                        baseOffset < 0 ? -1 : baseOffset + i, b.leader.id()));
            }
        }
    }

    /** Starts (or extends) the partition's failover timeline: this attempt of its batch failed. */
    private void traceFailure(ProduceBatch b, String why) {
        long nowNs = time.nanoseconds();
        PartitionQueue q = b.queue;
        q.lastFailure = why;
        if (q.trace == null) {
            q.trace = new FailoverTrace(q.topic, q.partition, b.leader.id(), q.lastAckNs, nowNs, why,
                    metadata.stats(), passes);
        } else {
            q.trace.failedAgain(nowNs, b.leader.id(), why);
        }
    }

    private void keep(ExampleProducer.Failover failover) {
        failovers.addLast(failover);
        if (++failoverCount > FAILOVERS_KEPT) {
            failovers.pollFirst();
            failoverCount--;
        }
    }

    private void failBatch(ProduceBatch b, RuntimeException cause) {
        b.queue.trace = null;
        b.queue.completed();
        fail(b.records, cause);
    }

    private void fail(List<PendingRecord> records, RuntimeException cause) {
        for (PendingRecord r : records) {
            if (r.finish()) {
                stats.failed.increment();
                buffer.release();
                r.future.completeExceptionally(cause);
            }
        }
    }

    private void failIncoming(RuntimeException cause) {
        List<PendingRecord> left = new ArrayList<>();
        for (PendingRecord r = incoming.poll(); r != null; r = incoming.poll()) {
            left.add(r);
        }
        fail(left, cause);
    }
}
