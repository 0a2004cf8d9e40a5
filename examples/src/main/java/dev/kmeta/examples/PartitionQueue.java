package dev.kmeta.examples;

import dev.kmeta.metadata.Diagnosis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The records waiting for one partition, oldest first. At most one batch of a partition is in flight, and a batch
 * that must be retried goes back to the head: so records are written in the order they were sent, retries included
 * (duplicates are possible after a lost response: this producer is not idempotent).
 *
 * <p>Confined to the network thread.
 */
final class PartitionQueue {
    private static final int NO_STALE_VERSION = Integer.MIN_VALUE;

    final String topic;
    final int partition;
    private final ArrayDeque<PendingRecord> records = new ArrayDeque<>();
    private List<PendingRecord> inFlight;
    private long retryAtMs;
    private int failedLeaderId = -1;
    private int staleVersion = NO_STALE_VERSION;
    private int laggingLeaderRefusals;
    /** The timeline since this partition's batch first failed; null while all goes well. */
    FailoverTrace trace;
    /** When the last ack of this partition arrived (System.nanoTime), 0 before the first. */
    long lastAckNs;
    /** Why the last attempt of this partition's batch failed (for an expiry's message); null once acked. */
    String lastFailure;
    /** Not before this (ms) is kmeta asked again about this partition's leader. */
    long nextLeaderCheckMs;
    private int unreachableLeaderId = -1;
    private long unreachableSinceMs;
    private Diagnosis unreachable;

    PartitionQueue(String topic, int partition) {
        this.topic = topic;
        this.partition = partition;
    }

    void add(PendingRecord record) {
        records.addLast(record);
    }

    boolean isEmpty() {
        return records.isEmpty() && inFlight == null;
    }

    /**
     * True if a batch may go now to {@code leaderId}, as named by the snapshot of version {@code snapshotVersion}:
     * none is in flight, and either the leader changed since a batch failed (a leader hint or fresh metadata: no
     * reason to wait, as in KIP-951) or the failed batch waited out its backoff - and, if that leader was found stale,
     * a newer snapshot confirms it (else the retry would go to the leader that just refused it, on a snapshot that
     * has not yet taken the hint in).
     */
    boolean sendableTo(int leaderId, int snapshotVersion, long nowMs) {
        if (inFlight != null || records.isEmpty()) {
            return false;
        }
        return leaderId != failedLeaderId || (nowMs >= retryAtMs && snapshotVersion > staleVersion);
    }

    /** Ms until the backoff of a failed batch ends (0 if none is backing off). */
    long backoffLeftMs(long nowMs) {
        return failedLeaderId < 0 ? 0 : Math.max(0, retryAtMs - nowMs);
    }

    /** True if records wait here with none in flight (for a leader, a connection or a retry backoff). */
    boolean hasWaitingRecords() {
        return inFlight == null && !records.isEmpty();
    }

    /** Takes the head of the queue, up to {@code maxBytes} (at least one record), as the batch in flight. */
    List<PendingRecord> drain(int maxBytes) {
        List<PendingRecord> batch = new ArrayList<>();
        int bytes = 0;
        while (!records.isEmpty() && (batch.isEmpty() || bytes + records.peekFirst().sizeInBytes() <= maxBytes)) {
            PendingRecord r = records.pollFirst();
            bytes += r.sizeInBytes();
            batch.add(r);
        }
        inFlight = batch;
        return batch;
    }

    /**
     * kmeta diagnosed the leader {@code leaderId} as never reachable at its advertised address: the streak starts now
     * unless it runs already for that leader (the diagnosis itself is refreshed).
     */
    void leaderUnreachable(int leaderId, Diagnosis diagnosis, long nowMs) {
        if (unreachableLeaderId != leaderId) {
            unreachableLeaderId = leaderId;
            unreachableSinceMs = nowMs;
        }
        unreachable = diagnosis;
    }

    /** The leader is reachable, or another one (or none): no streak. */
    void leaderReachable() {
        unreachableLeaderId = -1;
        unreachable = null;
    }

    /** The diagnosis of the running streak, or null. */
    Diagnosis unreachableDiagnosis() {
        return unreachable;
    }

    /**
     * When the head waiting record fails if the streak goes on: once its send's budget is spent and the streak has
     * lasted {@code maxBlockMs}; {@link Long#MAX_VALUE} without a streak or a waiting record.
     */
    long unreachableDeadlineMs(long maxBlockMs) {
        PendingRecord head = records.peekFirst();
        if (unreachable == null || inFlight != null || head == null) {
            return Long.MAX_VALUE;
        }
        return Math.max(head.blockDeadlineMs, unreachableSinceMs + maxBlockMs);
    }

    /** Waiting records due by {@link #unreachableDeadlineMs}, from the head, removed from the queue. */
    List<PendingRecord> expireUnreachable(long nowMs, long maxBlockMs) {
        List<PendingRecord> due = new ArrayList<>();
        while (unreachableDeadlineMs(maxBlockMs) <= nowMs) {
            due.add(records.pollFirst());
        }
        return due;
    }

    /** Every waiting record (not in flight), removed from the queue. */
    List<PendingRecord> drainWaiting() {
        List<PendingRecord> waiting = new ArrayList<>(records);
        records.clear();
        return waiting;
    }

    /** The batch in flight was answered (acked or failed for good). */
    void completed() {
        lastFailure = null;
        inFlight = null;
        failedLeaderId = -1;
        staleVersion = NO_STALE_VERSION;
        laggingLeaderRefusals = 0;
    }

    /** Counts a refusal by a leader that has not yet learned it leads; returns how many in a row, this one included. */
    int laggingLeaderRefusal() {
        return ++laggingLeaderRefusals;
    }

    /** The batch in flight failed and will be retried: back to the head, in order, not before {@code retryAtMs}. */
    void retry(List<PendingRecord> batch, int leaderId, long retryAtMs) {
        retry(batch, leaderId, retryAtMs, NO_STALE_VERSION);
    }

    /**
     * Like {@link #retry(List, int, long)}, for a batch {@code leaderId} refused as not (or no longer) the leader:
     * the same leader gets it again only from a snapshot newer than {@code staleVersion} (the hint or the refresh
     * that the refusal triggered has been applied).
     */
    void retry(List<PendingRecord> batch, int leaderId, long retryAtMs, int staleVersion) {
        for (int i = batch.size() - 1; i >= 0; i--) {
            records.addFirst(batch.get(i));
        }
        inFlight = null;
        failedLeaderId = leaderId;
        this.retryAtMs = retryAtMs;
        this.staleVersion = staleVersion;
    }

    /** Waiting (not in flight) records whose delivery timeout has passed, removed from the queue. */
    List<PendingRecord> expire(long nowMs) {
        List<PendingRecord> expired = new ArrayList<>();
        if (inFlight == null) {
            while (!records.isEmpty() && records.peekFirst().deliveryDeadlineMs <= nowMs) {
                expired.add(records.pollFirst());
            }
        }
        return expired;
    }

    /** Every record not yet completed, in flight or waiting, removed (when the producer stops). */
    List<PendingRecord> drainAll() {
        List<PendingRecord> all = new ArrayList<>(records);
        if (inFlight != null) {
            all.addAll(0, inFlight);
        }
        records.clear();
        inFlight = null;
        return all;
    }
}
