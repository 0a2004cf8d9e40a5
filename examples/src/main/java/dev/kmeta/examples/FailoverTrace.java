package dev.kmeta.examples;

import dev.kmeta.sender.MetadataStats;

import java.util.Locale;

/**
 * The timeline of one partition from its first failed produce attempt (a stale leader, a disconnect, a retriable
 * error) to the ack that ends it: what failed and why, when kmeta's snapshot named another leader and what brought
 * it (a leader hint or a metadata answer), when the batch went out again and when it was acked. Finished, it becomes
 * an {@link ExampleProducer.Failover}.
 *
 * <p>Confined to the network thread.
 */
final class FailoverTrace {
    private final String topic;
    private final int partition;
    private final int oldLeaderId;
    private final long lastAckNs;
    private final long failedNs;
    private final String cause;
    private final long hintsAtFailure;
    private final long answersAtFailure;
    private final long requestsAtFailure;
    private final long passAtFailure;
    private final StringBuilder timeline = new StringBuilder();
    private int attempts;
    private int leaderSeen;
    private int notReadyLeader = -1;
    private long newLeaderSeenNs = -1;
    private String learnedFrom = "";
    private long sentNs = -1;
    private long lastFailureNs;
    private long clientWaitNs;

    FailoverTrace(String topic, int partition, int oldLeaderId, long lastAckNs, long failedNs, String cause,
                  MetadataStats kmeta, long pass) {
        this.topic = topic;
        this.partition = partition;
        this.oldLeaderId = oldLeaderId;
        this.lastAckNs = lastAckNs;
        this.failedNs = failedNs;
        this.cause = cause;
        this.hintsAtFailure = kmeta.leaderHintsApplied();
        this.answersAtFailure = kmeta.responsesApplied();
        this.requestsAtFailure = kmeta.requestsSent();
        this.passAtFailure = pass;
        this.leaderSeen = oldLeaderId;
        this.attempts = 1;
        this.lastFailureNs = failedNs;
        event(failedNs, cause + " from " + oldLeaderId);
    }

    /** Another attempt of the same batch failed. */
    void failedAgain(long nowNs, int leaderId, String why) {
        attempts++;
        lastFailureNs = nowNs;
        event(nowNs, why + " from " + leaderId);
    }

    /** A pass of the network loop found this leader in kmeta's snapshot (recorded when it changes). */
    void leaderInSnapshot(long nowNs, int leaderId, int version, MetadataStats kmeta, long pass) {
        if (leaderId == leaderSeen) {
            return;
        }
        leaderSeen = leaderId;
        long hints = kmeta.leaderHintsApplied() - hintsAtFailure;
        long answers = kmeta.responsesApplied() - answersAtFailure;
        if (leaderId != oldLeaderId && newLeaderSeenNs < 0) {
            newLeaderSeenNs = nowNs;
            learnedFrom = hints > 0 && answers > 0 ? "hint or answer" : hints > 0 ? "hint" : answers > 0 ? "answer"
                    : "?";
        }
        event(nowNs, String.format(Locale.ROOT, "snapshot v%d names %s (since the failure: %d hints, %d answers"
                + " applied, %d requests sent, %d loop passes)", version, leaderId < 0 ? "no leader" : leaderId,
                hints, answers, kmeta.requestsSent() - requestsAtFailure, pass - passAtFailure));
    }

    /** The batch may go to {@code leaderId} but the connection is not ready (recorded once per leader). */
    void notReady(long nowNs, int leaderId) {
        if (notReadyLeader != leaderId) {
            notReadyLeader = leaderId;
            event(nowNs, "connection to " + leaderId + " not ready");
        }
    }

    void sent(long nowNs, int leaderId) {
        sentNs = nowNs;
        clientWaitNs += nowNs - lastFailureNs; // from the answer that failed the last attempt to this send
        event(nowNs, "sent to " + leaderId);
    }

    ExampleProducer.Failover acked(long nowNs, int leaderId) {
        event(nowNs, "acked by " + leaderId);
        return new ExampleProducer.Failover(topic, partition, oldLeaderId, leaderId, cause, attempts, lastAckNs,
                failedNs, newLeaderSeenNs, learnedFrom, sentNs, nowNs, clientWaitNs, timeline.toString());
    }

    private void event(long nowNs, String what) {
        if (timeline.length() > 0) {
            timeline.append("; ");
        }
        timeline.append(String.format(Locale.ROOT, "+%.1f ms %s", (nowNs - failedNs) / 1e6, what));
    }
}
