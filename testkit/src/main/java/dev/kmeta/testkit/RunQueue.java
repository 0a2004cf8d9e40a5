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
        return field(SCHEDSTAT, 1);
    }

    /** Nanoseconds the calling thread ran on a CPU since it started, or -1 if unknown. */
    public static long ranNs() {
        return field(SCHEDSTAT, 0);
    }

    /**
     * Nanoseconds the thread whose {@code schedstat} file this is (from {@link #fileOfCallingThread()}) waited on a
     * run queue since it started, read from any thread; -1 if unknown (also once the thread is gone, some time after
     * it ended: keep its last value where it matters).
     */
    public static long waitedNs(Path schedstat) {
        return field(schedstat, 1);
    }

    /**
     * The calling thread's own {@code /proc/<pid>/task/<tid>/schedstat}, which other threads can read through
     * {@link #waitedNs(Path)} (the {@code thread-self} link resolves to the reader); null where it does not exist.
     */
    public static Path fileOfCallingThread() {
        try {
            Path self = Path.of("/proc").resolve(Files.readSymbolicLink(Path.of("/proc/thread-self")));
            Path schedstat = self.resolve("schedstat");
            return Files.isReadable(schedstat) ? schedstat : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static long field(Path schedstat, int index) {
        try {
            String[] fields = Files.readString(schedstat).trim().split("\\s+");
            return Long.parseLong(fields[index]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
