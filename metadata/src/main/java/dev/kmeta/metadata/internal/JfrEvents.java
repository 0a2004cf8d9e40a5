package dev.kmeta.metadata.internal;

/**
 * Loads this package's JFR event classes when a manager is made, not on the first wait: the JVM has JFR instrument an
 * event class when it is loaded (a one-time cost per JVM, 100 ms and more on a busy machine), and a thread that paid
 * it inside its first timed wait returned that much after its deadline (ManagerStressTest). Stateless.
 */
final class JfrEvents {
    private JfrEvents() {
    }

    /** Makes (and drops) one event of each kind: loaded and instrumented now; nothing is recorded. */
    static void load() {
        new WaitEvent();
        new TimeoutEvent();
        new LeaderHintEvent();
        new ClusterIdChangeEvent();
    }
}
