package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.ConnectionEvidence;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The writer behind {@link ConnectionEvidence}: the sender records connection attempts, ready connections, answers
 * and problems here, and every reader (waits' diagnoses, {@code KafkaMetadata.evidence()}, the CLI) sees them through
 * the read-only interface.
 *
 * <p>Thread-safe: one writer (the sender thread, or the producer's network thread in driven mode), any number of
 * readers. Each record's fields are volatile; a reader may see one record's fields from two moments, which is fine
 * for an explanation.
 */
public final class EvidenceRecorder implements ConnectionEvidence {
    /** One broker address as the sender knows it; the sender writes it through the recorder. */
    static final class Entry implements Record {
        private final String nodeId;
        private final String address;
        private final String host;
        private final int port;
        private final boolean bootstrap;
        private volatile int attempts;
        private volatile int answers;
        private volatile int failures;
        private volatile Problem lastProblem;
        private volatile String lastDetail;
        private volatile long lastProblemMs = Long.MIN_VALUE;
        private volatile long lastAnswerMs = Long.MIN_VALUE;
        private volatile long lastAttemptMs = Long.MIN_VALUE;
        private volatile long lastConnectedMs = Long.MIN_VALUE;
        private volatile boolean connected;
        private volatile boolean accepted;

        Entry(String nodeId, String address, boolean bootstrap) {
            this.nodeId = nodeId;
            this.address = address;
            this.bootstrap = bootstrap;
            int colon = address.lastIndexOf(':');
            this.host = colon < 0 ? address : address.substring(0, colon);
            this.port = colon < 0 ? -1 : parsePort(address.substring(colon + 1));
        }

        private static int parsePort(String text) {
            try {
                return Integer.parseInt(text);
            } catch (NumberFormatException e) {
                return -1;
            }
        }

        /** The node id the connection is known by ({@code -1}, {@code -2}... for bootstrap addresses). */
        @Override
        public String nodeId() {
            return nodeId;
        }

        /** {@code host:port}. */
        @Override
        public String address() {
            return address;
        }

        /** True when this record is about {@code host:port} (allocation-free). */
        @Override
        public boolean isAt(String host, int port) {
            return this.port == port && this.host.equals(host);
        }

        /** True for an address from {@code bootstrap.servers}. */
        @Override
        public boolean isBootstrap() {
            return bootstrap;
        }

        /** Connection attempts made. */
        @Override
        public int attempts() {
            return attempts;
        }

        /** Metadata answers received through it. */
        @Override
        public int answers() {
            return answers;
        }

        /** Failures seen (connect failures, drops, timeouts). */
        @Override
        public int failures() {
            return failures;
        }

        /** The last problem, or null. */
        @Override
        public Problem lastProblem() {
            return lastProblem;
        }

        /** Words on the last problem, or null. */
        @Override
        public String lastDetail() {
            return lastDetail;
        }

        /** When the last problem happened (sender clock, ms), or {@link Long#MIN_VALUE}. */
        @Override
        public long lastProblemMs() {
            return lastProblemMs;
        }

        /** True once an answer came through this address. */
        @Override
        public boolean everAnswered() {
            return answers > 0;
        }

        /** When the last answer came through it (sender clock, ms), or {@link Long#MIN_VALUE}. */
        @Override
        public long lastAnswerMs() {
            return lastAnswerMs;
        }

        /**
         * When a connection to it was last seen ready (handshakes done), sender clock ms, or {@link Long#MIN_VALUE}.
         */
        @Override
        public long lastConnectedMs() {
            return lastConnectedMs;
        }

        /**
         * True once the address accepted a connection that became ready (TCP, TLS/SASL, ApiVersions) or an answer
         * came through it: the address works from here, or did.
         */
        @Override
        public boolean everConnected() {
            return lastConnectedMs != Long.MIN_VALUE || answers > 0;
        }

        /** True once the address accepted a TCP connection from here, or {@link #everConnected()}. */
        @Override
        public boolean everAccepted() {
            return accepted || everConnected();
        }

        /** True when anything happened on this address (attempt, answer, problem) at or after {@code sinceMs}. */
        @Override
        public boolean activeSince(long sinceMs) {
            return lastAttemptMs >= sinceMs || lastAnswerMs >= sinceMs || (lastProblem != null
                    && lastProblemMs >= sinceMs);
        }

        /** True when its last event is a problem: no answer came through it since, and no connection became ready. */
        @Override
        public boolean failingNow() {
            return lastProblem != null && lastProblemMs >= lastAnswerMs && lastProblemMs >= lastConnectedMs;
        }

        /**
         * True when it is {@link #failingNow() failing} because the address could not be reached - a connection that
         * could not be made or made ready, a name that does not resolve, a request without an answer - rather than
         * because an established connection dropped (which a reconnect may mend) or a handshake was refused.
         */
        @Override
        public boolean unreachableNow() {
            Problem p = lastProblem;
            return failingNow() && (p == Problem.CONNECT_FAILED || p == Problem.DNS || p == Problem.REQUEST_TIMEOUT);
        }

        /** One line, e.g. {@code bootstrap 127.0.0.1:1: 3 attempts, 0 answers, last CONNECT_FAILED (...)}. */
        @Override
        public String toString() {
            return (bootstrap ? "bootstrap " : "broker " + nodeId + " at ") + address + ": " + attempts
                    + " attempt(s), " + answers + " answer(s)" + (lastProblem == null ? ""
                    : ", last " + lastProblem + (lastDetail == null ? "" : " (" + lastDetail + ")"));
        }
    }

    private final ConcurrentHashMap<String, Entry> records = new ConcurrentHashMap<>();
    /**
     * Run by the writer after an outcome that may change what a reader decides from the evidence (a connection
     * accepted or ready, a problem, a bootstrap resolution failure): the manager wakes the threads parked for a
     * change. Set once, before the writer starts.
     */
    private volatile Runnable onChange = () -> { };
    /** Learned brokers (ids >= 0), by id: sorted ids and their records, replaced whole by the one writer. */
    private volatile BrokerIndex brokers = BrokerIndex.EMPTY;

    /** An immutable sorted id -> record table: lookups by binary search, no boxing. */
    private static final class BrokerIndex {
        static final BrokerIndex EMPTY = new BrokerIndex(new int[0], new Entry[0]);
        final int[] ids;
        final Entry[] records;

        BrokerIndex(int[] ids, Entry[] records) {
            this.ids = ids;
            this.records = records;
        }

        Entry get(int id) {
            int i = Arrays.binarySearch(ids, id);
            return i < 0 ? null : records[i];
        }

        BrokerIndex with(int id, Entry r) {
            int i = Arrays.binarySearch(ids, id);
            if (i >= 0) {
                Entry[] rs = records.clone();
                rs[i] = r;
                return new BrokerIndex(ids, rs);
            }
            int at = -i - 1;
            int[] newIds = new int[ids.length + 1];
            Entry[] newRecords = new Entry[ids.length + 1];
            System.arraycopy(ids, 0, newIds, 0, at);
            System.arraycopy(records, 0, newRecords, 0, at);
            newIds[at] = id;
            newRecords[at] = r;
            System.arraycopy(ids, at, newIds, at + 1, ids.length - at);
            System.arraycopy(records, at, newRecords, at + 1, ids.length - at);
            return new BrokerIndex(newIds, newRecords);
        }
    }

    /** What runs after each outcome that may change a reader's decision (the manager's wake of change waiters). */
    void onChange(Runnable hook) {
        this.onChange = java.util.Objects.requireNonNull(hook, "hook");
    }

    /**
     * Something the evidence's readers decide from changed outside the records (a bootstrap name that did not resolve
     * within its bound): wakes the threads parked for a change. The writer's thread.
     */
    public void changed() {
        onChange.run();
    }

    // The writers below are for the sender (the one writer).

    /** The record of this node id at this address: the existing one, or a new one when none or the address moved. */
    public Record record(String nodeId, String address, boolean bootstrap) {
        Entry r = records.get(nodeId);
        if (r == null || !r.address.equals(address)) {
            r = new Entry(nodeId, address, bootstrap);
            records.put(nodeId, r);
            int id = brokerId(nodeId, bootstrap);
            if (id >= 0) {
                brokers = brokers.with(id, r);
            }
        }
        return r;
    }

    private static int brokerId(String nodeId, boolean bootstrap) {
        if (bootstrap) {
            return -1;
        }
        try {
            return Integer.parseInt(nodeId);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** A connection attempt to it starts now. */
    public void attempt(Record record, long nowMs) {
        Entry r = (Entry) record;
        r.attempts++;
        r.lastAttemptMs = nowMs;
    }

    /**
     * A connection attempt to it failed that no {@link #attempt} announced (one a producer's own client made, in
     * driven mode): counted as one.
     */
    public void unannouncedAttemptFailed(Record record, long nowMs) {
        Entry r = (Entry) record;
        if (!r.connected && (r.lastAttemptMs == Long.MIN_VALUE || r.lastAttemptMs < r.lastProblemMs)) {
            attempt(r, nowMs);
        }
    }

    /**
     * A connection to it is ready (handshakes done) now. Only a new connection is stamped: a request sent on one
     * that was already open says nothing of whether the address answers now (a blackholed broker keeps its idle
     * connection "ready"), so it must not count as reachable during a wait.
     */
    public void connected(Record record, long nowMs) {
        Entry r = (Entry) record;
        boolean fresh = !r.connected;
        if (fresh) {
            r.lastConnectedMs = nowMs;
        }
        r.connected = true;
        if (fresh) {
            changed();
        }
    }

    /**
     * A connection to it was accepted (TCP established, handshakes not finished yet): something listens at the
     * address. Says nothing of whether a connection becomes ready ({@link #connected}).
     */
    public void accepted(Record record) {
        Entry r = (Entry) record;
        if (!r.accepted) {
            r.accepted = true;
            changed();
        }
    }

    /** An answer came through it now (so it is connected). */
    public void answer(Record record, long nowMs) {
        Entry r = (Entry) record;
        boolean fresh = !r.connected;
        r.answers++;
        r.lastAnswerMs = nowMs;
        r.connected = true;
        if (fresh) {
            changed();
        }
    }

    /** A problem of kind {@code p} now ({@code DISCONNECTED} of a never-ready connection counts as a connect failure). */
    public void problem(Record record, Problem p, String detail, long nowMs) {
        Entry r = (Entry) record;
        if (p == Problem.DISCONNECTED && !r.connected) {
            p = Problem.CONNECT_FAILED;
        }
        r.connected = false;
        r.failures++;
        r.lastProblem = p;
        r.lastDetail = detail;
        r.lastProblemMs = nowMs;
        changed();
    }

    /** Every address seen so far. */
    @Override
    public Collection<Record> records() {
        return new ArrayList<>(records.values());
    }

    /** The record for a node id, or null. */
    @Override
    public Record get(String nodeId) {
        return records.get(nodeId);
    }

    /** The record of learned broker {@code id} (its current address's), or null; allocation-free. */
    @Override
    public Record broker(int id) {
        return brokers.get(id);
    }

    /** One line summing up the addresses that have problems, or null when none has. */
    @Override
    public String summary() {
        List<String> parts = new ArrayList<>();
        for (Entry r : records.values()) {
            if (r.lastProblem != null) {
                parts.add(r.toString());
            }
        }
        return parts.isEmpty() ? null : String.join("; ", parts);
    }
}
