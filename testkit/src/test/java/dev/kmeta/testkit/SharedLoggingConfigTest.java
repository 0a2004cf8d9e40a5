package dev.kmeta.testkit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every module whose tests run testkit's in-process brokers keeps the brokers' own loggers quiet in its test logging
 * configuration ({@code src/test/resources/simplelogger.properties}): their expected halts, refused connections and
 * twice-registered MBeans printed ~120 ERROR and ~2,100 stack-trace lines in a passing build. kmeta's loggers and
 * kafka-clients' client side are left at the build's level, so what a test is about stays visible. (cli's tests
 * read cli's own shipped configuration, which turns everything off but with {@code --verbose}; bench runs no broker
 * in its tests.)
 */
class SharedLoggingConfigTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final List<String> MODULES = List.of("testkit", "sender", "kafka-producer", "examples",
            "micrometer", "spring", "streams", "compat-tests");
    /** The brokers' loggers: the Scala broker, its state-change log, its metrics, and the Java server packages. */
    static final List<String> BROKER_LOGGERS = List.of("kafka", "state.change.logger", "com.yammer.metrics",
            "org.apache.kafka.server", "org.apache.kafka.controller", "org.apache.kafka.raft",
            "org.apache.kafka.metadata", "org.apache.kafka.image", "org.apache.kafka.storage",
            "org.apache.kafka.coordinator", "org.apache.kafka.queue", "org.apache.kafka.snapshot",
            "org.apache.kafka.network", "org.apache.kafka.security");
    private static final Set<String> QUIET = Set.of("off", "error");
    /** Client-side and kmeta loggers that must not be silenced as a whole: tests read and assert on them. */
    private static final List<String> KEPT = List.of("dev.kmeta", "org.apache.kafka.clients");

    @Test
    void everyBrokerRunningModuleQuietsTheBrokersLoggers() throws IOException {
        List<String> problems = new ArrayList<>();
        for (String module : MODULES) {
            Path file = ROOT.resolve(module).resolve("src/test/resources/simplelogger.properties");
            if (!Files.isRegularFile(file)) {
                problems.add(module + ": no " + ROOT.relativize(file));
                continue;
            }
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(file)) {
                p.load(r);
            }
            for (String logger : BROKER_LOGGERS) {
                String level = p.getProperty("org.slf4j.simpleLogger.log." + logger);
                if (level == null || !QUIET.contains(level.trim())) {
                    problems.add(module + ": " + logger + " at " + level + " (off or error expected)");
                }
            }
            for (String logger : KEPT) {
                if (p.getProperty("org.slf4j.simpleLogger.log." + logger) != null) {
                    problems.add(module + ": sets " + logger + " as a whole (what tests assert on)");
                }
            }
        }
        assertTrue(problems.isEmpty(), "test logging configurations:\n  " + String.join("\n  ", problems));
    }
}
