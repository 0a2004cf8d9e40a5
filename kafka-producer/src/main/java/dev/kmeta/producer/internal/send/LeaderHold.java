package dev.kmeta.producer.internal.send;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.cluster.internal.TopicAttachment;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.Ticker;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import dev.kmeta.sender.internal.Handles;
import org.apache.kafka.common.errors.TimeoutException;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.concurrent.atomic.LongAdder;
import java.time.Duration;

/**
 * The KafkaProducer route's hold on a send whose partition's leader has never accepted a connection from here while
 * the bootstrap answered (kmeta's ADVERTISED_LISTENER_UNREACHABLE, issue 14): such a send waits in {@code send()} as
 * a metadata wait does, within its {@code max.block.ms}, and then fails with kmeta's diagnosis; a leader move, or the
 * address accepting a connection, ends the wait and lets the send through. A leader that was connected before and
 * cannot be reached now is not held (the producer's ordinary retries, until {@code delivery.timeout.ms}).
 *
 * <p>A send names its partition only when the record does; a keyed or unkeyed record's partition is chosen after
 * the wait, so for it the topic is held only when every partition's leader is unreachable (a record may land on any
 * of them); a keyed record for one such partition among reachable ones keeps the ordinary expiry, with its diagnosis.
 *
 * <p>How, in KafkaProducer's {@code waitOnMetadata}: {@link SendProtocol} arms the send (HOLD_ARMED) when the
 * interceptor's onSend finds the verdict {@link Verdict#UNREACHABLE} (or, with settling, when the topic a send waited
 * for arrived and its leaders are not proven); the armed thread's first {@code fetch()} shows the topic absent, never
 * a smaller partition count; the {@code add(topic)} KafkaProducer calls right after holds the send ({@link #hold})
 * and throws kmeta's timeout itself - outside the wait whose TimeoutException KafkaProducer replaces with its own
 * message - or returns, and KafkaProducer's wait goes on to the real view.
 *
 * <p>One per {@link dev.kmeta.producer.internal.ProducerBridge}; keeps no per-send state (the send's topic, partition
 * and start come as arguments): only the producer's network thread. Thread-safe. {@link #verdict} is allocation-free (a
 * snapshot read and the leaders' evidence records).
 */
public final class LeaderHold implements SendProtocol.Leaders {
    /** What the evidence says of the leaders a record may go to. */
    enum Verdict {
        /** A leader that accepted a connection, or none (no leader: the producer's ordinary wait): send. */
        SENDABLE,
        /**
         * kmeta's snapshot does not have the topic: the metadata wait's business, sendable as far as the hold goes;
         * a send that saw it looks again when the topic arrives ({@link SendProtocol}).
         */
        UNKNOWN_TOPIC,
        /** A leader not tried yet at its address, or being tried. */
        UNSETTLED,
        /** Every leader the record may go to never accepted a connection and fails now. */
        UNREACHABLE;

        /** True when nothing speaks against sending now: {@link #SENDABLE} or {@link #UNKNOWN_TOPIC}. */
        boolean isSendable() {
            return this == SENDABLE || this == UNKNOWN_TOPIC;
        }
    }

    private final KafkaMetadata metadata;
    private final long maxBlockMs;
    /** The kmeta instance's clock: the hold's deadline reads it, and the hold parks on it. */
    private final Ticker ticker;
    /** The instance's connection evidence, read when a topic's leaders are not proven yet. */
    private final Supplier<ConnectionEvidence> evidence;
    /** Sends that were held (parked at least once) in {@code send()}. */
    private final LongAdder held = new LongAdder();
    /** Held sends let through before their deadline: what kmeta records changed. */
    private final LongAdder released = new LongAdder();
    /** Held sends that reached their deadline (failed with kmeta's diagnosis, or let through unsettled). */
    private final LongAdder timedOut = new LongAdder();
    /** True on the producer's network thread (callbacks run there: a send from one is never held). */
    private final java.util.function.BooleanSupplier onNetworkThread;

    public LeaderHold(KafkaMetadata metadata, long maxBlockMs, java.util.function.BooleanSupplier onNetworkThread) {
        this.metadata = metadata;
        this.evidence = metadata::evidence;
        this.ticker = metadata.ticker();
        this.maxBlockMs = maxBlockMs;
        this.onNetworkThread = onNetworkThread;
    }

    /** How many sends were held in {@code send()} (parked at least once, settling or on an unreachable leader). */
    public long held() {
        return held.sum();
    }

    /** How many held sends were let through before {@code max.block.ms}, by a change kmeta recorded. */
    public long released() {
        return released.sum();
    }

    /** How many held sends reached {@code max.block.ms}. */
    public long timedOut() {
        return timedOut.sum();
    }

    /** True on the producer's network thread. */
    @Override
    public boolean isNetworkThread() {
        return onNetworkThread.getAsBoolean();
    }

    /**
     * The verdict for a send's record. A topic whose every leader already accepted a connection at its address is
     * answered from its {@link Proof} (kept on kmeta's topic object: one read and two identity compares - a send to
     * such a topic touches none of its partitions, brokers or evidence records, which is what a send costs when the
     * caches went cold between sends, as in P2k); otherwise the full verdict, which also moves the proof along (at
     * most one partition beyond the proven ones per send, so O(topic partitions) once per topic change, amortized).
     */
    @Override
    public Verdict verdict(String topic, int partition) {
        return verdict(metadata.fetch(), evidence, topic, partition);
    }

    @Override
    public Verdict verdict(Cluster c, TopicMetadata entry, int partition) {
        return verdict(c, entry, evidence, partition);
    }

    /**
     * True when every leader of {@code t} (the topic's entry in snapshot {@code c}) over {@code c}'s brokers accepted a
     * connection or there is none: the proof a verdict moves along is complete, for good - every send to the topic on
     * {@code c} is {@link Verdict#SENDABLE}. Reads the proof only; never moves it.
     */
    public static boolean proven(Cluster c, TopicMetadata t) {
        Object kept = TopicAttachment.get(t, TopicAttachment.SEND);
        return kept instanceof Proof && ((Proof) kept).nodes == c.nodes() && ((Proof) kept).complete;
    }

    /** {@link #verdict(String, int)} on snapshot {@code c}; {@code evidence} is read only when the proof is not done. */
    static Verdict verdict(Cluster c, Supplier<ConnectionEvidence> evidence, String topic, int partition) {
        return verdict(c, c.topic(topic), evidence, partition);
    }

    /** The same, with the topic's entry in {@code c} looked up already ({@code t}; null: absent). */
    private static Verdict verdict(Cluster c, TopicMetadata t, Supplier<ConnectionEvidence> evidence, int partition) {
        if (t == null) {
            return Verdict.UNKNOWN_TOPIC;
        }
        Object kept = TopicAttachment.get(t, TopicAttachment.SEND);
        Proof proof = kept instanceof Proof && ((Proof) kept).nodes == c.nodes() ? (Proof) kept : null;
        if (proof != null && proof.complete) {
            return Verdict.SENDABLE;
        }
        if (proof == null) {
            proof = new Proof(c.nodes()); // once per topic object and broker list (racing threads: either will do)
            TopicAttachment.set(t, TopicAttachment.SEND, proof);
        }
        ConnectionEvidence e = evidence.get();
        proof.advance(c, e, t);
        return judge(c, e, t, partition);
    }

    /**
     * How far a topic object's leaders, over one broker list, are proven: every partition below {@link #next} has no
     * leader or one that accepted a connection at its address in that list (accepting is for good, so the proof never
     * goes back; a new leader or address is a new topic object or broker list, and a new proof). Kept in the topic's
     * {@link TopicAttachment#SEND} slot, for every producer of the instance (the evidence is the instance's). Moved
     * along by sending threads; a racy write only repeats a step.
     */
    static final class Proof {
        final java.util.List<Node> nodes;
        volatile int next;
        volatile boolean complete;

        Proof(java.util.List<Node> nodes) {
            this.nodes = nodes;
        }

        /** Moves past the proven partitions from {@link #next}; stops at the first whose leader is not proven. */
        void advance(Cluster c, ConnectionEvidence evidence, TopicMetadata topic) {
            int i = next;
            int count = topic.partitionCount();
            // SENDABLE for a partition of this topic object over this broker list is for good: no leader, or accepted
            while (i < count && of(c, evidence, topic.partition(i)) == Verdict.SENDABLE) {
                i++;
            }
            if (i != next) {
                next = i;
            }
            if (i >= count) {
                complete = true;
            }
        }
    }

    /**
     * Holds the send (in the add(topic) after the fetch() that hid its topic) until {@code max.block.ms} from
     * {@code sendStartNs}.
     *
     * @return kmeta's diagnosed timeout (ADVERTISED_LISTENER_UNREACHABLE); null to let the send through
     * @throws InterruptedException if the thread is interrupted while held (its interrupt status cleared)
     */
    @Override
    public TimeoutException hold(String topic, int partition, boolean settle, long sendStartNs)
            throws InterruptedException {
        long leftMs = maxBlockMs - TimeUnit.NANOSECONDS.toMillis(ticker.nanoTime() - sendStartNs);
        return hold(metadata, topic, partition, Deadline.after(Duration.ofMillis(Math.max(0, leftMs)), ticker), settle,
                sendStartNs, this);
    }

    /** The verdict for a record to {@code partition} ({@link MetadataClient#ANY_PARTITION}: any of the topic's). */
    static Verdict verdict(KafkaMetadata metadata, String topic, int partition) {
        return verdict(metadata.fetch(), metadata.evidence(), topic, partition);
    }

    /** The verdict on a snapshot and the evidence of the sender that made it. */
    static Verdict verdict(Cluster c, ConnectionEvidence evidence, String topic, int partition) {
        return judge(c, evidence, c.topic(topic), partition);
    }

    /** The same, with the topic's entry in {@code c} looked up already ({@code t}; null: absent). */
    private static Verdict judge(Cluster c, ConnectionEvidence evidence, TopicMetadata t, int partition) {
        if (t == null) {
            return Verdict.UNKNOWN_TOPIC;
        }
        if (partition != MetadataClient.ANY_PARTITION) {
            return of(c, evidence, t.partition(partition));
        }
        boolean unsettled = false;
        for (int i = 0; i < t.partitionCount(); i++) {
            Verdict v = of(c, evidence, t.partition(i));
            if (v == Verdict.SENDABLE) {
                return v;
            }
            unsettled |= v == Verdict.UNSETTLED;
        }
        return t.partitionCount() == 0 ? Verdict.SENDABLE : unsettled ? Verdict.UNSETTLED : Verdict.UNREACHABLE;
    }

    private static Verdict of(Cluster c, ConnectionEvidence evidence, PartitionMetadata p) {
        Node leader = p == null || !p.hasLeader() ? null : c.node(p.leaderId());
        if (leader == null) {
            return Verdict.SENDABLE;
        }
        ConnectionEvidence.Record r = evidence.broker(leader.id());
        if (r == null || !r.isAt(leader.host(), leader.port())) {
            return Verdict.UNSETTLED;
        }
        if (r.everAccepted()) {
            return Verdict.SENDABLE; // accepted a connection before: down now or not, the ordinary retries
        }
        return r.failingNow() ? Verdict.UNREACHABLE : Verdict.UNSETTLED;
    }

    /**
     * Holds the calling thread while the record's leaders are {@link Verdict#UNREACHABLE} (and, with {@code settle},
     * while they are {@link Verdict#UNSETTLED}: a send that just waited for its topic gives kmeta the moment it needs
     * to try the leaders it learned), at most until {@code deadline}.
     *
     * @param sinceNs when the send's wait began (on the deadline's ticker), for the message
     * @return kmeta's diagnosed timeout when the deadline found the leaders unreachable; null to let the send through
     * @throws InterruptedException if the thread is interrupted while held (its interrupt status cleared)
     */
    private static TimeoutException hold(KafkaMetadata metadata, String topic, int partition, Deadline deadline,
                                 boolean settle, long sinceNs, LeaderHold counts) throws InterruptedException {
        for (boolean first = true; ; first = false) {
            Verdict v = verdict(metadata, topic, partition);
            if (v.isSendable() || v == Verdict.UNSETTLED && !settle) {
                if (!first) {
                    counts.released.increment();
                }
                return null;
            }
            long leftNs = deadline.remainingNs();
            if (leftNs <= 0) {
                if (!first) {
                    counts.timedOut.increment();
                }
                return v == Verdict.UNREACHABLE
                        ? timeout(metadata, topic, partition, deadline.ticker().nanoTime() - sinceNs) : null;
            }
            if (first) {
                counts.held.increment();
            }
            // woken by what changes the verdict: a connection outcome kmeta records, a new snapshot, close
            Handles.parkUntilChange(metadata, leftNs, () -> verdict(metadata, topic, partition) == v);
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for a reachable leader of " + topic);
            }
        }
    }

    /** kmeta's timeout for the held send, when kmeta's diagnosis confirms the unreachable listener; else null. */
    private static TimeoutException timeout(KafkaMetadata metadata, String topic, int partition, long waitedNs) {
        Diagnosis d = metadata.diagnose(topic, partition == MetadataClient.ANY_PARTITION ? 0 : partition);
        if (d == null || d.cause() != Diagnosis.Cause.ADVERTISED_LISTENER_UNREACHABLE) {
            return null;
        }
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(waitedNs);
        String queued = " (kafka-clients would queue the record until delivery.timeout.ms)";
        String what = partition == MetadataClient.ANY_PARTITION
                ? "Topic " + topic + " not sendable after " + waitedMs + " ms: no partition's leader ever accepted a "
                + "connection" + queued + "; partition " + d.partition() + ": "
                : "Partition " + partition + " of topic " + topic + " not sendable after " + waitedMs + " ms" + queued
                + ": ";
        return new KafkaMetadataTimeoutException(what + d.cause() + ": " + d.seen() + ". Fix: " + d.fix(), d);
    }
}
