package dev.kmeta.metadata;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the sender saw of each broker address: connection attempts, answers, the last error and when. The evidence
 * a timeout's explanation is built from ("bootstrap 127.0.0.1:9092 refused 5 connections").
 *
 * <p>Thread-safe: the sender thread writes, any thread reads. Each record's fields are volatile; a reader may see
 * one record's fields from two moments, which is fine for an explanation.
 */
public final class ConnectionEvidence {
    /** What went wrong last on a connection. */
    public enum Problem {
        /** The TCP connection could not be made (refused, unreachable, setup timeout). */
        CONNECT_FAILED,
        /** The host name did not resolve. */
        DNS,
        /** SASL authentication failed. */
        AUTHENTICATION,
        /** The TLS handshake failed (certificate not trusted, host name mismatch). */
        TLS_HANDSHAKE,
        /** An established connection dropped. */
        DISCONNECTED,
        /** A request got no answer within {@code request.timeout.ms}. */
        REQUEST_TIMEOUT
    }

    /** One broker address as the sender knows it. */
    public static final class Record {
        private final String nodeId;
        private final String address;
        private final boolean bootstrap;
        private volatile int attempts;
        private volatile int answers;
        private volatile int failures;
        private volatile Problem lastProblem;
        private volatile String lastDetail;
        private volatile long lastProblemMs;
        private volatile long lastAnswerMs = Long.MIN_VALUE;
        private volatile long lastAttemptMs = Long.MIN_VALUE;
        private volatile boolean connected;

        Record(String nodeId, String address, boolean bootstrap) {
            this.nodeId = nodeId;
            this.address = address;
            this.bootstrap = bootstrap;
        }

        /** The node id the connection is known by ({@code -1}, {@code -2}... for bootstrap addresses). */
        public String nodeId() {
            return nodeId;
        }

        /** {@code host:port}. */
        public String address() {
            return address;
        }

        /** True for an address from {@code bootstrap.servers}. */
        public boolean isBootstrap() {
            return bootstrap;
        }

        /** Connection attempts made. */
        public int attempts() {
            return attempts;
        }

        /** Metadata answers received through it. */
        public int answers() {
            return answers;
        }

        /** Failures seen (connect failures, drops, timeouts). */
        public int failures() {
            return failures;
        }

        /** The last problem, or null. */
        public Problem lastProblem() {
            return lastProblem;
        }

        /** Words on the last problem, or null. */
        public String lastDetail() {
            return lastDetail;
        }

        /** When the last problem happened (sender clock, ms). */
        public long lastProblemMs() {
            return lastProblemMs;
        }

        /** True once an answer came through this address. */
        public boolean everAnswered() {
            return answers > 0;
        }

        /** When the last answer came through it (sender clock, ms), or {@link Long#MIN_VALUE}. */
        public long lastAnswerMs() {
            return lastAnswerMs;
        }

        /** True when anything happened on this address (attempt, answer, problem) at or after {@code sinceMs}. */
        public boolean activeSince(long sinceMs) {
            return lastAttemptMs >= sinceMs || lastAnswerMs >= sinceMs || (lastProblem != null
                    && lastProblemMs >= sinceMs);
        }

        /** True when its last event is a problem: no answer came through it since. */
        public boolean failingNow() {
            return lastProblem != null && lastProblemMs >= lastAnswerMs;
        }

        /** One line, e.g. {@code bootstrap 127.0.0.1:1: 3 attempts, 0 answers, last CONNECT_FAILED (...)}. */
        @Override
        public String toString() {
            return (bootstrap ? "bootstrap " : "broker " + nodeId + " at ") + address + ": " + attempts
                    + " attempt(s), " + answers + " answer(s)" + (lastProblem == null ? ""
                    : ", last " + lastProblem + (lastDetail == null ? "" : " (" + lastDetail + ")"));
        }
    }

    private final ConcurrentHashMap<String, Record> records = new ConcurrentHashMap<>();

    // The writers below are for the sender (the one writer); readers may call anything.

    public Record record(String nodeId, String address, boolean bootstrap) {
        Record r = records.get(nodeId);
        if (r == null || !r.address.equals(address)) {
            r = new Record(nodeId, address, bootstrap);
            records.put(nodeId, r);
        }
        return r;
    }

    public void attempt(Record r, long nowMs) {
        r.attempts++;
        r.lastAttemptMs = nowMs;
    }

    public void connected(Record r) {
        r.connected = true;
    }

    public void answer(Record r, long nowMs) {
        r.answers++;
        r.lastAnswerMs = nowMs;
        r.connected = true;
    }

    public void problem(Record r, Problem p, String detail, long nowMs) {
        if (p == Problem.DISCONNECTED && !r.connected) {
            p = Problem.CONNECT_FAILED;
        }
        r.connected = false;
        r.failures++;
        r.lastProblem = p;
        r.lastDetail = detail;
        r.lastProblemMs = nowMs;
    }

    /** Every address seen so far. */
    public Collection<Record> records() {
        return new ArrayList<>(records.values());
    }

    /** The record for a node id, or null. */
    public Record get(String nodeId) {
        return records.get(nodeId);
    }

    /** One line summing up the addresses that have problems, or null when none has. */
    public String summary() {
        List<String> parts = new ArrayList<>();
        for (Record r : records.values()) {
            if (r.lastProblem != null) {
                parts.add(r.toString());
            }
        }
        return parts.isEmpty() ? null : String.join("; ", parts);
    }
}
