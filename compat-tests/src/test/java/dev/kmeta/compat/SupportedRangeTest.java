package dev.kmeta.compat;

import dev.kmeta.testkit.TestClients;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.sender.internal.KafkaClientsCompat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The supported kafka-clients range is stated once in code ({@code KafkaClientsCompat.OLDEST} and {@code NEWEST});
 * the build's tested versions and the docs must agree with it.
 *
 * <p>The docs' convention: the whole supported range is written {@code 4.0.x to 4.4.x} (the ".x to" form, kept for
 * it); a part of it (an ABI's versions: {@code 4.0-4.3}) in any other form. This test fails on a ".x to" range that is
 * not the code's, on a range written otherwise that spans exactly the code's (so that it is found when the range
 * moves), on any range of the same major that reaches past the newest tested version, and on an "X.Y.x+" whose start
 * is not the oldest.
 */
class SupportedRangeTest {
    private static final Pattern CANONICAL = Pattern.compile("(?<![\\d.])(\\d+\\.\\d+)\\.x to (\\d+\\.\\d+)\\.x");
    private static final Pattern ANY = Pattern.compile(
            "(?<![\\d.])(\\d+\\.\\d+)(?:\\.x)?\\s*(?:to|-|–|through)\\s*(\\d+\\.\\d+)(?:\\.x)?(?![\\d.]*\\d|x\\b)");
    private static final Pattern OPEN = Pattern.compile("(?<![\\d.])(\\d+\\.\\d+)(?:\\.x)?\\+");

    @Test
    void theBuildTestsEveryMinorOfTheRangeAndNoOther() {
        List<String> minors = ClientJars.supported().stream().map(v -> v.replaceAll("^(\\d+\\.\\d+).*", "$1"))
                .collect(Collectors.toList());
        List<String> expected = new ArrayList<>();
        int[] oldest = parse(KafkaClientsCompat.OLDEST);
        int[] newest = parse(KafkaClientsCompat.NEWEST);
        assertEquals(oldest[0], newest[0], "one major (else list the minors here)");
        for (int minor = oldest[1]; minor <= newest[1]; minor++) {
            expected.add(oldest[0] + "." + minor);
        }
        assertEquals(expected, minors, "kmeta.compat.clients.versions (the root pom's kafka.clients4x.version "
                + "properties) against KafkaClientsCompat.OLDEST and NEWEST");
    }

    @Test
    void theDocsStateTheRangeTheCodeStates() throws IOException {
        List<Path> files = new ArrayList<>(List.of(Paths.get("..", "README.md")));
        try (Stream<Path> docs = Files.list(Paths.get("..", "docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        String oldest = KafkaClientsCompat.OLDEST;
        String newest = KafkaClientsCompat.NEWEST;
        String canonical = oldest + ".x to " + newest + ".x";
        List<String> wrong = new ArrayList<>();
        int statements = 0;
        for (Path file : files) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                String where = file.getFileName() + ":" + (i + 1) + ": ";
                Matcher c = CANONICAL.matcher(line);
                while (c.find()) {
                    statements++;
                    if (!c.group().equals(canonical)) {
                        wrong.add(where + "\"" + c.group() + "\" is not the supported range " + canonical);
                    }
                }
                Matcher a = ANY.matcher(CANONICAL.matcher(line).replaceAll(""));
                while (a.find()) {
                    int[] from = parse(a.group(1));
                    int[] to = parse(a.group(2));
                    if (from[0] != parse(newest)[0] || to[0] != from[0]) {
                        continue; // another major: brokers 3.x, not the clients' range
                    }
                    if (a.group(1).equals(oldest) && a.group(2).equals(newest)) {
                        wrong.add(where + "\"" + a.group() + "\" states the supported range: write it " + canonical);
                    } else if (to[1] > parse(newest)[1]) {
                        wrong.add(where + "\"" + a.group() + "\" reaches past the newest tested " + newest);
                    }
                }
                Matcher o = OPEN.matcher(line);
                while (o.find()) {
                    if (parse(o.group(1))[0] == parse(oldest)[0] && !o.group(1).equals(oldest)) {
                        wrong.add(where + "\"" + o.group() + "\" does not start at the oldest supported " + oldest);
                    }
                }
            }
        }
        TestClients.report("%s", "supported-range statements in README.md and docs/*.md: " + statements);
        assertEquals(List.of(), wrong, "docs that disagree with KafkaClientsCompat.OLDEST/NEWEST");
        assertTrue(statements >= 2, "README.md and docs/kafka-producer.md state the range: " + statements);
    }

    private static int[] parse(String majorMinor) {
        String[] p = majorMinor.split("\\.");
        return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])};
    }
}
