package dev.kmeta.testkit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fixtures every module's tests share stay testkit's ({@link TestClients}, {@link MetadataAnswers}): no test
 * source outside testkit grows its own copy of them again. Before, ~8 tests built Metadata answers by hand and the
 * sender's and kafka-producer's tests each had a copy of the same helpers.
 */
class SharedFixturesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** Copies of TestClients' helpers, as the tests' own declarations of them looked. */
    private static final Pattern HELPER_COPY = Pattern.compile("(?m)^\\s*(?:public |private )?static [\\w<>, ]+ "
            + "(kmetaThreads|closedPort|metadataRequests|resetProxies|openConnections|millisSince)\\((?!String)");
    /**
     * Tests that build Metadata answers field by field on purpose - the translator's and the hostile-input tests
     * check the wire's own shapes (versions, duplicates, gaps) - and JfrEventsTest's one inline answer, left to the
     * engineer rewriting the sender's timing tests.
     */
    private static final Set<String> HAND_BUILT_ANSWERS_ALLOWED = Set.of("ResponseTranslatorTest.java",
            "ResponseTranslatorReuseTest.java", "HostileRun.java", "HostileRegressionTest.java", "HostileWorld.java",
            "JfrEventsTest.java");

    @Test
    void noTestOutsideTestkitCopiesTheSharedFixtures() throws IOException {
        List<String> copies = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path module : modules.filter(m -> Files.isDirectory(m.resolve("src/test/java"))).toList()) {
                if (module.getFileName().toString().equals("testkit")) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(module.resolve("src/test/java"))) {
                    for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                        String source = Files.readString(file);
                        String name = file.getFileName().toString();
                        var helper = HELPER_COPY.matcher(source);
                        while (helper.find()) {
                            String body = source.substring(helper.end(), source.indexOf('}', helper.end()));
                            if (body.contains("TestClients.") || body.contains("ItSupport.")) {
                                continue; // a module's name for the shared one (sender's ItSupport), not a copy
                            }
                            copies.add(ROOT.relativize(file) + ": its own " + helper.group(1) + "() (TestClients has it)");
                        }
                        if (source.contains("new MetadataResponse(") && !HAND_BUILT_ANSWERS_ALLOWED.contains(name)) {
                            copies.add(ROOT.relativize(file) + ": a hand-built Metadata answer (MetadataAnswers builds one)");
                        }
                    }
                }
            }
        }
        assertTrue(copies.isEmpty(), "copies of testkit's shared fixtures:\n  " + String.join("\n  ", copies));
    }
}
