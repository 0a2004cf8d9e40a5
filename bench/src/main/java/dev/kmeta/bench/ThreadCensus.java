package dev.kmeta.bench;

import dev.kmeta.testkit.RunQueue;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;

/**
 * What Linux's scheduler did to a group of this JVM's threads, read from outside them: their time runnable but
 * waiting for a CPU ({@code /proc/self/task/TID/schedstat}, ns), how often they were taken off a CPU while still
 * runnable (preempted: {@code nonvoluntary_ctxt_switches}) and how often they gave it up to wait for something
 * ({@code voluntary_ctxt_switches}: a park, a monitor, a {@code select}). Read at a phase's bounds, the differences
 * say whether one route's threads meet the machine's load more often than the other's - the moments in which a send
 * passes 10 ms - without touching the sends themselves.
 *
 * <p>The Java threads are found by name through HotSpot's thread dump ({@code threadPrint}, whose {@code nid} is the
 * Linux thread id): one safepoint, taken once per round before anything is measured. Linux only; elsewhere
 * {@link #of} returns an empty census and {@link #read} zeros. Not thread-safe; used by the harness's main thread.
 */
final class ThreadCensus {
    /** Run-queue wait (ns), preemptions and voluntary switches, summed over the group's threads. */
    record Counts(long runQueueNs, long preempted, long slept) {
        Counts minus(Counts earlier) {
            return new Counts(runQueueNs - earlier.runQueueNs, preempted - earlier.preempted, slept - earlier.slept);
        }
    }

    private final List<Long> tids;

    private ThreadCensus(List<Long> tids) {
        this.tids = tids;
    }

    /** The threads named {@code names} among {@code ids} ({@link #nativeIds}; those not found are left out). */
    static ThreadCensus of(Map<String, Long> ids, List<String> names) {
        return new ThreadCensus(names.stream().filter(ids::containsKey).map(ids::get).toList());
    }

    /** How many of the named threads were found. */
    int size() {
        return tids.size();
    }

    /** The group's counters now (a thread that ended counts from then on as zero). */
    Counts read() {
        long queue = 0;
        long preempted = 0;
        long slept = 0;
        for (long tid : tids) {
            Path task = Path.of("/proc/self/task/" + tid);
            long waitedNs = RunQueue.waitedNs(task.resolve("schedstat"));
            if (waitedNs < 0) {
                continue; // the thread ended, or no /proc: it adds nothing
            }
            queue += waitedNs;
            try {
                for (String line : Files.readAllLines(task.resolve("status"))) {
                    if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                        preempted += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                    } else if (line.startsWith("voluntary_ctxt_switches:")) {
                        slept += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the thread ended, or no /proc: it adds nothing
            }
        }
        return new Counts(queue, preempted, slept);
    }

    /**
     * Java thread name to Linux thread id, from HotSpot's thread dump (a safepoint: take it once, before anything is
     * measured); empty where it cannot be had.
     */
    static Map<String, Long> nativeIds() {
        Map<String, Long> ids = new HashMap<>();
        try {
            String dump = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "threadPrint",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            for (String line : dump.split("\n")) {
                int nid = line.indexOf(" nid=");
                if (line.startsWith("\"") && nid > 0) {
                    boolean hex = line.startsWith("0x", nid + 5); // Java 17 prints it in hex, later ones decimal
                    int from = nid + (hex ? 7 : 5);
                    int end = from;
                    while (end < line.length() && Character.digit(line.charAt(end), 16) >= 0) {
                        end++;
                    }
                    ids.put(line.substring(1, line.indexOf('"', 1)),
                            Long.parseLong(line.substring(from, end), hex ? 16 : 10));
                }
            }
        } catch (Exception e) {
            System.out.println("  thread census: no thread dump (" + e + ")");
        }
        return ids;
    }
}
