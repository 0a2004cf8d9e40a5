package dev.kmeta.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * What Linux's scheduler knows of the calling thread: its time runnable but not running (waiting on a CPU's run
 * queue, the second field of {@code /proc/thread-self/schedstat}, ns) and its minor page faults (the tenth field of
 * {@code /proc/thread-self/stat}). With the thread's CPU time they split a slow call's wall time into work, waiting
 * for a CPU (the machine's load) and waiting for something else (a lock, a park, a GC pause, I/O), and tell work that
 * was the kernel's (faulting pages in) from the thread's own.
 *
 * <p>Not testkit's {@code RunQueue}, which opens the file and builds strings on every read: read around every send of
 * a run, that would add allocation (and with it GC pauses, one of the causes a slow-send run looks for) to both
 * routes' sends; this keeps its files open and reuses one buffer.
 *
 * <p>Opened by, and only to be used from, the thread it reads; not thread-safe. Where the files cannot be read
 * ({@link #open()} returns null) the harness reports no split.
 */
final class ThreadSchedStats implements AutoCloseable {
    private final FileChannel schedstat;
    private final FileChannel stat;
    private final ByteBuffer buffer = ByteBuffer.allocate(1024);

    private ThreadSchedStats(FileChannel schedstat, FileChannel stat) {
        this.schedstat = schedstat;
        this.stat = stat;
    }

    /** This thread's statistics, or null where {@code /proc/thread-self} cannot be read. */
    static ThreadSchedStats open() {
        try {
            ThreadSchedStats stats = new ThreadSchedStats(
                    FileChannel.open(Path.of("/proc/thread-self/schedstat"), StandardOpenOption.READ),
                    FileChannel.open(Path.of("/proc/thread-self/stat"), StandardOpenOption.READ));
            stats.runQueueNs();
            stats.minorFaults();
            return stats;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The calling thread's run-queue wait since it started, ns. */
    long runQueueNs() {
        read(schedstat);
        return field(0, 1);
    }

    /** The calling thread's minor page faults since it started. */
    long minorFaults() {
        read(stat);
        int at = 0;
        for (int i = 0; i < buffer.position(); i++) { // the fields after the command name, which may hold spaces
            at = buffer.get(i) == ')' ? i + 2 : at;
        }
        return field(at, 7); // field 3 (state) is the first after ')'; minflt is field 10
    }

    private void read(FileChannel channel) {
        buffer.clear();
        try {
            channel.read(buffer, 0);
        } catch (IOException e) {
            throw new IllegalStateException("reading /proc/thread-self", e);
        }
    }

    /** The {@code skip}-th space-separated number from {@code from} (0: the first). */
    private long field(int from, int skip) {
        int at = from;
        for (int s = 0; s < skip; s++) {
            while (buffer.get(at) != ' ') {
                at++;
            }
            at++;
        }
        long value = 0;
        for (; at < buffer.position() && Character.isDigit(buffer.get(at)); at++) {
            value = value * 10 + buffer.get(at) - '0';
        }
        return value;
    }

    @Override
    public void close() throws IOException {
        try (stat) {
            schedstat.close();
        }
    }
}
