package dev.kmeta.compat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The pinned call traces of the KafkaProducer route: what {@link ProducerCallsProbe} recorded, made readable and
 * deterministic, and the checked-in files they are compared with
 * ({@code compat-tests/src/test/resources/producer-call-traces/kafka-clients-<version>.txt}).
 *
 * <p>A trace file holds one block per scenario: a {@code ## <scenario>} line, the {@code outcome}, then one call per
 * line as {@code <role> <method>}: first the application thread's calls ({@code app}) in their order; then the
 * producer network thread's ({@code net}): one {@code net polls ...} line with the set of read-only calls its loops
 * made ({@link #POLLS}), then its other calls in their order; then any other thread's ({@code other}), likewise. The
 * order of calls on one thread is the protocol; how the threads interleave, and how often a loop ran, is timing: so
 * repeats are folded ({@link #foldRepeats}): each line stands for one or more calls, a sequence of lines for a loop
 * that ran once or more. Stateless; thread-safe.
 */
final class ProducerCallTraces {
    /** Set to true to (re)write the checked-in traces from this run instead of comparing with them. */
    static final String WRITE_PROPERTY = "kmeta.traces.write";
    /**
     * The read-only calls the producer's network thread makes on every loop of its Sender and NetworkClient
     * ({@code Sender.sendProducerData}, {@code NetworkClient.poll}, {@code leastLoadedNode}, the produce request's
     * topic ids): how many loops run between two events is timing, so these are pinned as the set a scenario made.
     */
    static final Set<String> POLLS = Set.of("fetch", "fetchMetadataSnapshot", "timeToNextUpdate", "topicIds",
            "topicNames", "lastSuccessfulUpdate", "updateVersion", "isClosed");

    private ProducerCallTraces() {
    }

    /** The checked-in traces' directory (compat-tests/src/test/resources/producer-call-traces). */
    static Path directory() {
        return Paths.get(System.getProperty("kmeta.compat.traces.dir", "src/test/resources/producer-call-traces"));
    }

    static Path file(String version) {
        return directory().resolve("kafka-clients-" + version + ".txt");
    }

    /** The trace text of a probe's answer: per scenario (in the probe's order), its outcome and normalised calls. */
    static List<String> render(String version, Map<String, Object> seen) {
        List<String> lines = new ArrayList<>();
        lines.add("# The calls on kmeta's ProducerMetadata stand-in, as the kafka-clients of this file's name makes "
                + "them. Format: ProducerCallTraces; rewrite: -D" + WRITE_PROPERTY + "=true");
        for (String scenario : ProducerCallsProbe.SCENARIOS) {
            @SuppressWarnings("unchecked")
            List<String> raw = (List<String>) seen.get(scenario);
            lines.add("");
            lines.add("## " + scenario);
            if (raw == null) {
                lines.add("outcome missing");
                continue;
            }
            lines.add(raw.get(0));
            Map<String, List<String>> byRole = new LinkedHashMap<>();
            for (String role : List.of("app", "net", "other")) {
                byRole.put(role, new ArrayList<>());
            }
            for (String call : raw.subList(1, raw.size())) {
                int space = call.indexOf(' ');
                byRole.get(call.substring(0, space)).add(call.substring(space + 1));
            }
            for (var role : byRole.entrySet()) {
                List<String> calls = role.getValue();
                Set<String> polls = new TreeSet<>();
                if (!role.getKey().equals("app")) {
                    calls.stream().filter(POLLS::contains).forEach(polls::add);
                    calls = calls.stream().filter(c -> !POLLS.contains(c)).collect(Collectors.toList());
                    if (!polls.isEmpty()) {
                        lines.add(role.getKey() + " polls " + String.join(", ", polls));
                    }
                }
                for (String call : foldRepeats(calls)) {
                    lines.add(role.getKey() + " " + call);
                }
            }
        }
        return lines;
    }

    /**
     * One thread's calls with every repeat folded away: wherever a call or a sequence of calls comes twice in a row,
     * the second is dropped (shortest first, leftmost first), until nothing comes twice in a row. A loop that ran
     * once and one that ran five times read the same; so do {@code add, add, poll} and {@code add, poll}.
     */
    static List<String> foldRepeats(List<String> calls) {
        List<String> items = new ArrayList<>(calls);
        boolean folded = true;
        while (folded) {
            folded = false;
            for (int length = 1; length <= items.size() / 2 && !folded; length++) {
                for (int start = 0; start + 2 * length <= items.size() && !folded; start++) {
                    if (items.subList(start, start + length).equals(items.subList(start + length,
                            start + 2 * length))) {
                        items.subList(start + length, start + 2 * length).clear();
                        folded = true;
                    }
                }
            }
        }
        return items;
    }

    /** The first difference between the pinned and the recorded trace, or null if they are the same. */
    static String firstDifference(String version, List<String> expected, List<String> actual) {
        String scenario = "(header)";
        int line = 0;
        for (int i = 0; i < Math.max(expected.size(), actual.size()); i++) {
            String e = i < expected.size() ? expected.get(i) : "(end of trace)";
            String a = i < actual.size() ? actual.get(i) : "(end of trace)";
            if (e.startsWith("## ")) {
                scenario = e.substring(3);
                line = 0;
            } else if (!e.isEmpty()) {
                line++;
            }
            if (!e.equals(a)) {
                return "kafka-clients " + version + ", scenario " + scenario + ", line " + line + " (" + file(version)
                        .getFileName() + " line " + (i + 1) + "): expected <" + e + "> but was <" + a + ">";
            }
        }
        return null;
    }

    static List<String> read(String version) throws IOException {
        Path file = file(version);
        return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : null;
    }

    /** The calls as recorded, before folding, to target/producer-call-traces-raw (to see what a difference was). */
    static void writeRaw(String version, Map<String, Object> seen) throws IOException {
        Path dir = Paths.get(System.getProperty("kmeta.compat.traces.raw.dir", "target/producer-call-traces-raw"));
        Files.createDirectories(dir);
        List<String> lines = new ArrayList<>();
        for (String scenario : ProducerCallsProbe.SCENARIOS) {
            lines.add("## " + scenario);
            @SuppressWarnings("unchecked")
            List<String> raw = (List<String>) seen.getOrDefault(scenario, List.of());
            lines.addAll(raw);
        }
        Files.write(dir.resolve("kafka-clients-" + version + ".txt"), lines, StandardCharsets.UTF_8);
    }

    static void write(String version, List<String> lines) throws IOException {
        Files.createDirectories(directory());
        Files.write(file(version), lines, StandardCharsets.UTF_8);
    }
}
