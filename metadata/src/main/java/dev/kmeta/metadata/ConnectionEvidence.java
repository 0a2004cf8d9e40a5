package dev.kmeta.metadata;

import java.util.Collection;

/**
 * What the sender saw of each broker address: connection attempts, answers, the last error and when. The evidence
 * a timeout's explanation is built from ("bootstrap 127.0.0.1:9092 refused 5 connections"). A read-only view: only
 * kmeta's sender writes it.
 *
 * <p>A learned broker's record is also found by its id without allocating ({@link #broker(int)}): what a per-record
 * check of a producer reads ("has the leader of this partition ever accepted a connection?").
 *
 * <p>Thread-safe: the sender thread writes, any thread reads. A reader may see one record's fields from two moments,
 * which is fine for an explanation.
 */
public interface ConnectionEvidence {
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
        REQUEST_TIMEOUT,
        /**
         * The broker at this address refused kmeta's identity (KIP-1242: ApiVersions answered
         * {@code REBOOTSTRAP_REQUIRED}): it is another node, or a node of another cluster, than the one kmeta knows here.
         */
        MISROUTED
    }

    /** One broker address as the sender knows it: a live view, its values move as the sender records more. */
    interface Record {
        /** The node id the connection is known by ({@code -1}, {@code -2}... for bootstrap addresses). */
        String nodeId();

        /** {@code host:port}. */
        String address();

        /** True when this record is about {@code host:port} (allocation-free). */
        boolean isAt(String host, int port);

        /** True for an address from {@code bootstrap.servers}. */
        boolean isBootstrap();

        /** Connection attempts made. */
        int attempts();

        /** Metadata answers received through it. */
        int answers();

        /** Failures seen (connect failures, drops, timeouts). */
        int failures();

        /** The last problem, or null. */
        Problem lastProblem();

        /** Words on the last problem, or null. */
        String lastDetail();

        /** When the last problem happened (sender clock, ms), or {@link Long#MIN_VALUE}. */
        long lastProblemMs();

        /** True once an answer came through this address. */
        boolean everAnswered();

        /** When the last answer came through it (sender clock, ms), or {@link Long#MIN_VALUE}. */
        long lastAnswerMs();

        /**
         * When a connection to it was last seen ready (handshakes done), sender clock ms, or {@link Long#MIN_VALUE}.
         */
        long lastConnectedMs();

        /**
         * True once the address accepted a connection that became ready (TCP, TLS/SASL, ApiVersions) or an answer
         * came through it: the address works from here, or did.
         */
        boolean everConnected();

        /**
         * True once the address accepted a TCP connection from here (before its handshakes finished), or
         * {@link #everConnected()}: something listens there. A connection accepted and then never made ready (a
         * proxy in front of a dead broker, a port that speaks another protocol) shows here and not in
         * everConnected.
         */
        default boolean everAccepted() {
            return everConnected();
        }

        /** True when anything happened on this address (attempt, answer, problem) at or after {@code sinceMs}. */
        boolean activeSince(long sinceMs);

        /** True when its last event is a problem: no answer came through it since, and no connection became ready. */
        boolean failingNow();

        /**
         * True when it is {@link #failingNow() failing} because the address could not be reached - a connection that
         * could not be made or made ready, a name that does not resolve, a request without an answer - rather than
         * because an established connection dropped (which a reconnect may mend) or a handshake was refused.
         */
        boolean unreachableNow();

        /** One line, e.g. {@code bootstrap 127.0.0.1:1: 3 attempt(s), 0 answer(s), last CONNECT_FAILED (...)}. */
        @Override
        String toString();
    }

    /** Every address seen so far (a new list each call). */
    Collection<Record> records();

    /** The record for a node id ({@code "-1"}, {@code "-2"}... for bootstrap addresses), or null. */
    Record get(String nodeId);

    /** The record of learned broker {@code id} (its current address's), or null; allocation-free. */
    Record broker(int id);

    /** One line summing up the addresses that have problems, or null when none has. */
    String summary();
}
