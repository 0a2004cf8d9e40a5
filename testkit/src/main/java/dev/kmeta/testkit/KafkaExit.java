package dev.kmeta.testkit;

import java.time.Instant;
import org.apache.kafka.common.utils.internals.Exit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replaces Kafka's {@code Exit.exit/halt} with procedures that throw {@link Called}: an in-process broker's fatal
 * fault must fail the test, not kill the JVM (and with it the Surefire fork). Installed once per JVM, never removed.
 *
 * <p>Kafka's fault handlers log the fault and then halt, without passing it on: {@code Exit.halt(1)} carries no
 * message, so the exception says what was called, when and on which thread, and that the cause is in the log.
 * {@link KafkaCluster} recognises it when a node's start fails and looks for the cause itself (a taken port).
 */
final class KafkaExit {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaExit.class);
    private static boolean installed;

    private KafkaExit() {
    }

    /** Thrown instead of exiting or halting the JVM. */
    static final class Called extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Called(String procedure, int code, String message, String thread, Instant at) {
            super("Kafka called Exit." + procedure + "(" + code + ") on thread " + thread + " at " + at + ": "
                    + (message != null ? message : "no message (the fault handler logged the cause just before)"));
        }
    }

    static synchronized void installThrowingProcedures() {
        if (installed) {
            return;
        }
        Exit.setExitProcedure((code, message) -> fail("exit", code, message));
        Exit.setHaltProcedure((code, message) -> fail("halt", code, message));
        installed = true;
    }

    /**
     * Runs a node's start or stop, during which an Exit call is expected - a start that lost its port to another
     * process (retried, or failed with the taken port named), a shutdown whose fault handler halts - and logged at
     * DEBUG only (the {@link Called} exception says it all where it matters). Outside these, at ERROR. Counts nodes of
     * every cluster of the JVM: a node that halts while another starts is logged at DEBUG too.
     */
    static <T> T expectedDuring(java.util.function.Supplier<T> startOrStop) {
        NODES_STARTING_OR_STOPPING.incrementAndGet();
        try {
            return startOrStop.get();
        } finally {
            NODES_STARTING_OR_STOPPING.decrementAndGet();
        }
    }

    private static final java.util.concurrent.atomic.AtomicInteger NODES_STARTING_OR_STOPPING =
            new java.util.concurrent.atomic.AtomicInteger();

    private static void fail(String procedure, int code, String message) {
        if (NODES_STARTING_OR_STOPPING.get() > 0) {
            LOG.debug("an in-process Kafka node called Exit.{}({}) while nodes start or stop: {}", procedure, code,
                    message);
        } else {
            LOG.error("an in-process Kafka node called Exit.{}({}): {}", procedure, code, message);
        }
        throw new Called(procedure, code, message, Thread.currentThread().getName(), Instant.now());
    }
}
