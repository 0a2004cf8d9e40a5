package dev.kmeta.sender.matrix;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How long the calling thread has spent runnable but waiting for a CPU, and running on one, from Linux's
 * {@code /proc/thread-self/schedstat} (second and first fields, ns). On a busy machine a thread woken at its deadline
 * may wait there for a CPU; that time is the machine's, not the woken code's, while a thread kept parked or blocked
 * accumulates none. Returns -1 where the file does not exist. A copy of the soak harness's helper
 * ({@code dev.kmeta.bench.soak.RunQueue}; bench is another module). Stateless and thread-safe.
 */
final class RunQueue {
    private static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");

    private RunQueue() {
    }

    /** Nanoseconds the calling thread waited on a run queue since it started, or -1 if unknown. */
    static long waitedNs() {
        return field(1);
    }

    /** Nanoseconds the calling thread ran on a CPU since it started, or -1 if unknown. */
    static long ranNs() {
        return field(0);
    }

    private static long field(int index) {
        try {
            String[] fields = Files.readString(SCHEDSTAT).trim().split("\\s+");
            return Long.parseLong(fields[index]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
