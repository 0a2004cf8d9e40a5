package dev.kmeta.testkit;

import org.apache.kafka.common.utils.internals.Exit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replaces Kafka's {@code Exit.exit/halt} with procedures that throw: an in-process broker's fatal fault must
 * fail the test, not kill the JVM (and with it the Surefire fork). Installed once per JVM, never removed.
 */
final class KafkaExit {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaExit.class);
    private static boolean installed;

    private KafkaExit() {
    }

    static synchronized void installThrowingProcedures() {
        if (installed) {
            return;
        }
        Exit.setExitProcedure((code, message) -> fail("exit", code, message));
        Exit.setHaltProcedure((code, message) -> fail("halt", code, message));
        installed = true;
    }

    private static void fail(String what, int code, String message) {
        LOG.error("an in-process Kafka node called Exit.{}({}): {}", what, code, message);
        throw new IllegalStateException("Kafka called Exit." + what + "(" + code + "): " + message);
    }
}
