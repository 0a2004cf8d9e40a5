package dev.kmeta.metadata.internal;

import jdk.jfr.FlightRecorder;

/**
 * Whether this package's JFR events are made at all, and their loading. Until JFR is initialized in this JVM (a
 * recording started: {@code -XX:StartFlightRecording}, {@code jcmd JFR.start}, {@code new Recording().start()}) no
 * event object is made and no event class is loaded: the first load of an event class brings up ~100 classes of JFR
 * (110-680 ms measured at load 24), a price a JVM without JFR should not pay. Once JFR is on, the classes are loaded
 * when a manager is made, not in a first timed wait, which once returned that much after its deadline
 * (ManagerStressTest). So the events are made and written here, never through a static method of an event class:
 * calling one loads the class, and with it JFR (a first {@code KafkaMetadata} loaded 112 JFR classes that way). The
 * event classes hold fields only. Stateless.
 */
final class JfrEvents {
    /** What ended a wait that got its answer. */
    static final String ANSWERED = "ANSWERED";

    private JfrEvents() {
    }

    /** A begun wait event, or null while JFR is off in this JVM (no event class loaded). */
    static WaitEvent startWait() {
        if (!on()) {
            return null;
        }
        WaitEvent event = new WaitEvent();
        event.begin();
        return event;
    }

    /** Ends {@code event} (null: none) with {@code outcome} and writes it if a recording wants it. */
    static void commitWait(WaitEvent event, String clientId, String topic, int partition, String outcome) {
        if (event == null) {
            return;
        }
        event.end();
        if (event.shouldCommit()) {
            event.clientId = clientId;
            event.topic = topic;
            event.partition = partition;
            event.outcome = outcome;
            event.commit();
        }
    }

    /** The outcome a wait that ended with {@code e} had. */
    static String outcomeOf(RuntimeException e) {
        if (e instanceof dev.kmeta.metadata.MetadataTimeoutException) {
            return "TIMED_OUT";
        } else if (e instanceof dev.kmeta.metadata.TopicException) {
            return "REFUSED";
        } else if (e instanceof dev.kmeta.metadata.MetadataClosedException) {
            return "CLOSED";
        } else if (e instanceof dev.kmeta.metadata.MetadataInterruptedException) {
            return "INTERRUPTED";
        }
        return "FATAL";
    }

    /** Writes a timeout event if a recording wants it (nothing is made while JFR is off). */
    static void recordTimeout(String clientId, String topic, int partition, long budgetMs,
                              dev.kmeta.metadata.Diagnosis d) {
        if (!on()) {
            return;
        }
        TimeoutEvent e = new TimeoutEvent();
        if (e.shouldCommit()) {
            e.clientId = clientId;
            e.topic = topic;
            e.partition = partition;
            e.budgetMs = budgetMs;
            e.cause = d.cause().name();
            e.seen = d.seen();
            e.fix = d.fix();
            e.commit();
        }
    }

    /** Writes a leader-hint event if a recording wants it. */
    static void recordLeaderHint(String clientId, LeaderHint h) {
        if (!on()) {
            return;
        }
        LeaderHintEvent e = new LeaderHintEvent();
        if (e.shouldCommit()) {
            e.clientId = clientId;
            e.topic = h.topic;
            e.partition = h.partition;
            e.leaderId = h.leaderId;
            e.leaderEpoch = h.leaderEpoch;
            e.commit();
        }
    }

    /** Writes a cluster-id-change event if a recording wants it. */
    static void recordClusterIdChange(String clientId, String previous, String next) {
        if (!on()) {
            return;
        }
        ClusterIdChangeEvent e = new ClusterIdChangeEvent();
        if (e.shouldCommit()) {
            e.clientId = clientId;
            e.previousClusterId = previous;
            e.clusterId = next;
            e.commit();
        }
    }

    /** True once JFR is initialized in this JVM: a static read. */
    static boolean on() {
        return FlightRecorder.isInitialized();
    }

    /** With JFR on, makes (and drops) one event of each kind: loaded and instrumented now; nothing is recorded. */
    static void load() {
        if (on()) {
            new WaitEvent();
            new TimeoutEvent();
            new LeaderHintEvent();
            new ClusterIdChangeEvent();
        }
    }
}
