package dev.kmeta.testkit;

import java.io.IOException;
import java.io.InputStream;

/**
 * Main class of a broker in a child JVM: runs {@code kafka.Kafka} and halts when its stdin reaches end of file,
 * which happens when the parent JVM dies, however it dies: a test JVM killed mid-run leaves no broker behind.
 */
final class ChildBroker {

    private ChildBroker() {
    }

    public static void main(String[] args) throws Exception {
        Thread watcher = new Thread(ChildBroker::haltWhenParentGone, "kmeta-testkit-parent-watch");
        watcher.setDaemon(true);
        watcher.start();
        kafka.Kafka.main(args);
    }

    private static void haltWhenParentGone() {
        InputStream in = System.in;
        try {
            while (in.read() >= 0) {
                // the parent never writes; reading only detects its end
            }
        } catch (IOException e) {
            // the same: the pipe is gone
        }
        Runtime.getRuntime().halt(3);
    }
}
