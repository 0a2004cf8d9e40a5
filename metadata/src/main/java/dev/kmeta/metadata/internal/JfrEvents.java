package dev.kmeta.metadata.internal;

import jdk.jfr.FlightRecorder;

/**
 * Whether this package's JFR events are made at all, and their loading. Until JFR is initialized in this JVM (a
 * recording started: {@code -XX:StartFlightRecording}, {@code jcmd JFR.start}, {@code new Recording().start()}) no
 * event object is made and no event class is loaded: the first load of an event class brings up ~100 classes of JFR
 * (110-680 ms measured at load 24), a price a JVM without JFR should not pay. Once JFR is on, the classes are loaded
 * when a manager is made, not in a first timed wait, which once returned that much after its deadline
 * (ManagerStressTest). Stateless.
 */
final class JfrEvents {
    private JfrEvents() {
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
