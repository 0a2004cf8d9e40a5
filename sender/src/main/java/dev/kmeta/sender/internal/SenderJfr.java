package dev.kmeta.sender.internal;

import jdk.jfr.FlightRecorder;

/**
 * The sender's JFR events, made and written here and never through a static method of an event class: calling one
 * loads that class, and with it JFR itself (~110 classes, a few hundred ms at load), a price a JVM without a
 * recording should not pay (metadata's {@code JfrEvents} says the same of its events). While JFR is off nothing is
 * made and no event class is loaded. Stateless.
 */
final class SenderJfr {
    private SenderJfr() {
    }

    /** True once JFR is initialized in this JVM. */
    private static boolean on() {
        return FlightRecorder.isInitialized();
    }

    /** With JFR on, loads the event classes now (their one-time instrumentation), not in a first request. */
    static void load() {
        if (on()) {
            new RefreshEvent();
            new RebootstrapEvent();
        }
    }

    /** A begun event for a request to {@code node}, or null while JFR is off in this JVM. */
    static RefreshEvent startRefresh(String clientId, String node, boolean full, int topicCount) {
        if (!on()) {
            return null;
        }
        RefreshEvent event = new RefreshEvent();
        if (event.isEnabled()) {
            event.clientId = clientId;
            event.node = node;
            event.full = full;
            event.topicCount = topicCount;
        }
        event.begin();
        return event;
    }

    /** Ends {@code event} (null: none) with {@code outcome} and writes it if a recording wants it; once. */
    static void finishRefresh(RefreshEvent event, String outcome) {
        if (event == null || event.finished) {
            return;
        }
        event.finished = true;
        event.end();
        if (event.shouldCommit()) {
            event.outcome = outcome;
            event.commit();
        }
    }

    /** Writes a rebootstrap event if a recording wants it. */
    static void recordRebootstrap(String clientId, String bootstrapServers) {
        if (!on()) {
            return;
        }
        RebootstrapEvent e = new RebootstrapEvent();
        if (e.shouldCommit()) {
            e.clientId = clientId;
            e.bootstrapServers = bootstrapServers;
            e.commit();
        }
    }
}
