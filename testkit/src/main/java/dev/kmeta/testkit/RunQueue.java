package dev.kmeta.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How long the calling thread has spent runnable but waiting for a CPU, and running on one, from Linux's
 * {@code /proc/thread-self/schedstat} (second and first fields, ns). On a busy machine a thread woken at its deadline
 * may wait there for a CPU; that time is the machine's, not the woken code's, while a thread kept parked or blocked
 * accumulates none. The fault matrix and the soak harness use it to tell a late wake-up from CPU starvation.
 * Returns -1 where the file does not exist. Stateless and thread-safe.
 */
public final class RunQueue {
    private static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");

    private RunQueue() {
    }

    /** Nanoseconds the calling thread waited on a run queue since it started, or -1 if unknown. */
    public static long waitedNs() {
        return field(1);
    }

    /** Nanoseconds the calling thread ran on a CPU since it started, or -1 if unknown. */
    public static long ranNs() {
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
