package dev.kmeta.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * A diagnosis aid for P2k's slow sends (not a measurement): reads a {@code --slow-detail} run's output and the JFR
 * recording made in the same JVM, and prints, for each send over 10 ms, what the recording shows during it - the
 * sending thread's own events (a monitor it waited for, a park, a CPU sample), every thread's lock waits and socket
 * writes of {@code minMs} or more, and the GC pauses and VM operations. Then, per slot and thread kind (steady,
 * network), the monitor waits and parks of the whole recording by their first frame outside the JDK, with how many
 * lasted 5 and 10 ms or more.
 *
 * <pre>{@code
 * java -XX:StartFlightRecording=filename=/tmp/p2k.jfr,settings=SLOW.jfc -cp bench/target/benchmarks.jar \
 *     dev.kmeta.bench.SendUnderChurnHarness --slow-detail true ... > /tmp/p2k.txt
 * java -cp bench/target/benchmarks.jar dev.kmeta.bench.SlowSendsInJfr /tmp/p2k.txt /tmp/p2k.jfr [minMs (2)]
 * }</pre>
 * {@code SLOW.jfc}: JDK's {@code profile.jfc} with the {@code jdk.JavaMonitorEnter} and {@code jdk.ThreadPark}
 * thresholds at 1 ms. Not thread-safe; a program.
 */
public final class SlowSendsInJfr {
    private static final Pattern SLOW = Pattern.compile("slow send: (\\S+) .* at (\\S+): ([0-9.]+) ms");

    private SlowSendsInJfr() {
    }

    /** One slow send from the harness's output. */
    record Slow(String line, String thread, Instant start, Instant end, List<String> seen) {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: SlowSendsInJfr <P2k --slow-detail output> <its JFR recording> [minMs]");
            System.exit(2);
        }
        List<Slow> slows = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            Matcher m = SLOW.matcher(line);
            if (m.find()) {
                Instant start = Instant.parse(m.group(2));
                slows.add(new Slow(line.trim(), m.group(1), start,
                        start.plusNanos((long) (Double.parseDouble(m.group(3)) * 1e6)), new ArrayList<>()));
            }
        }
        long minNs = (args.length > 2 ? Long.parseLong(args[2]) : 2) * 1_000_000;
        Map<String, long[]> waits = new TreeMap<>();
        try (RecordingFile file = new RecordingFile(Path.of(args[1]))) {
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                for (Slow s : slows) {
                    boolean during = !e.getEndTime().isBefore(s.start()) && !e.getStartTime().isAfter(s.end());
                    if (during && shows(e, s, minNs)) {
                        s.seen().add(describe(e, s.start()));
                    }
                }
                countWait(e, waits);
            }
        }
        for (Slow s : slows) {
            System.out.println(s.line());
            s.seen().forEach(System.out::println);
        }
        System.out.println("monitor waits and parks >= the recording's threshold, per route, thread and first frame:");
        waits.forEach((k, v) -> System.out.printf(Locale.ROOT, "  %-95s %5d, %8.1f ms; >= 5 ms %3d, >= 10 ms %3d%n",
                k, v[0], v[1] / 1e6, v[2], v[3]));
    }

    private static String name(RecordedEvent e) {
        return e.getEventType().getName();
    }

    private static String threadOf(RecordedEvent e) {
        RecordedThread t = e.getThread();
        String name = t == null ? null : t.getJavaName() != null ? t.getJavaName() : t.getOSName();
        return name == null ? "-" : name;
    }

    /** The sending thread's events; others' lock waits of minNs or more; pauses and VM operations. */
    private static boolean shows(RecordedEvent e, Slow s, long minNs) {
        boolean sender = threadOf(e).equals(s.thread());
        return switch (name(e)) {
            case "jdk.GCPhasePause", "jdk.ExecuteVMOperation" -> true;
            case "jdk.JavaMonitorEnter", "jdk.SocketWrite" -> sender || e.getDuration().toNanos() >= minNs;
            case "jdk.ThreadPark", "jdk.ExecutionSample" -> sender;
            default -> false;
        };
    }

    private static String describe(RecordedEvent e, Instant sendStart) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "    %+.2f ms: %s %.2f ms, %s",
                Duration.between(sendStart, e.getStartTime()).toNanos() / 1e6, name(e).substring(4),
                e.getDuration().toNanos() / 1e6, threadOf(e)));
        if (e.hasField("operation")) {
            b.append(", ").append(e.getString("operation"));
        }
        RecordedStackTrace st = e.getStackTrace();
        if (st != null) {
            st.getFrames().stream().limit(6).forEach(f -> b.append("\n        ").append(frame(f)));
        }
        return b.toString();
    }

    private static String frame(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName() + ":" + f.getLineNumber();
    }

    /** Monitor waits and parks of the producers' threads, by route, kind and first non-JDK frame (pacing left out). */
    private static void countWait(RecordedEvent e, Map<String, long[]> waits) {
        String type = name(e);
        String thread = threadOf(e);
        if (!type.equals("jdk.JavaMonitorEnter") && !type.equals("jdk.ThreadPark") || e.getStackTrace() == null) {
            return;
        }
        String route = thread.contains("kmeta") ? "kmeta" : thread.contains("stock") ? "stock" : null;
        String kind = thread.startsWith("p2k-steady") ? "steady"
                : thread.startsWith("kafka-producer-network-thread") ? "network" : null;
        if (route == null || kind == null) {
            return;
        }
        String first = e.getStackTrace().getFrames().stream()
                .filter(f -> !type.equals("jdk.ThreadPark") || !f.getMethod().getType().getName().startsWith("j"))
                .findFirst().map(f -> f.getMethod().getType().getName().replaceAll(".*\\.", "") + "."
                        + f.getMethod().getName()).orElse("?");
        if (first.startsWith("SendUnderChurnHarness")) {
            return; // the harness's pacing
        }
        long ns = e.getDuration().toNanos();
        long[] v = waits.computeIfAbsent(String.format(Locale.ROOT, "%s %s %s %s", route, kind, type.substring(4),
                first), k -> new long[4]);
        v[0]++;
        v[1] += ns;
        v[2] += ns >= 5_000_000 ? 1 : 0;
        v[3] += ns >= 10_000_000 ? 1 : 0;
    }
}
