package dev.kmeta.testkit;

import java.util.HashMap;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.LauncherSessionListener;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * testkit's quiet test logging (issue 40): the JUnit Platform finds {@link TestkitLogging} and it ran in this very
 * JVM before the tests; it sets the brokers' loggers off and Kafka's others to ERROR, leaves a logger someone set
 * alone, and one switch ({@value TestkitLogging#SWITCH}) puts every one of them at the level it names.
 */
class TestkitLoggingTest {
    private static final String PREFIX = "org.slf4j.simpleLogger.log.";
    private final Map<String, String> saved = new HashMap<>();

    @BeforeEach
    void save() {
        for (String logger : TestkitLogging.QUIET.keySet()) {
            saved.put(PREFIX + logger, System.getProperty(PREFIX + logger));
        }
        saved.put(TestkitLogging.SWITCH, System.getProperty(TestkitLogging.SWITCH));
    }

    @AfterEach
    void restore() {
        saved.forEach((key, value) -> {
            if (value == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, value);
            }
        });
    }

    private static void clearAll() {
        TestkitLogging.QUIET.keySet().forEach(logger -> System.clearProperty(PREFIX + logger));
        System.clearProperty(TestkitLogging.SWITCH);
    }

    @Test
    void theJUnitPlatformFindsItAndItRanInThisJvm() {
        assertTrue(ServiceLoader.load(LauncherSessionListener.class).stream()
                .anyMatch(p -> p.type() == TestkitLogging.class), "META-INF/services names it");
        String wanted = System.getProperty(TestkitLogging.SWITCH);
        if (wanted == null || wanted.isBlank()) { // the build's default: quiet
            assertEquals("off", System.getProperty(PREFIX + "kafka"));
            assertEquals("error", System.getProperty(PREFIX + "org.apache.kafka"));
        }
    }

    @Test
    void quietByDefault() {
        clearAll();
        TestkitLogging.apply();
        for (String broker : new String[] {"kafka", "state.change.logger", "org.apache.kafka.server",
            "org.apache.kafka.controller", "org.apache.kafka.raft"}) {
            assertEquals("off", System.getProperty(PREFIX + broker), broker);
        }
        assertEquals("error", System.getProperty(PREFIX + "org.apache.kafka"), "the clients' side");
        assertEquals(null, System.getProperty(PREFIX + "dev.kmeta"), "kmeta's own loggers are not touched");
    }

    @Test
    void aLoggerSetByHandIsLeftAlone() {
        clearAll();
        System.setProperty(PREFIX + "kafka", "info");
        TestkitLogging.apply();
        assertEquals("info", System.getProperty(PREFIX + "kafka"));
        assertEquals("off", System.getProperty(PREFIX + "state.change.logger"));
    }

    /** A Kafka logger first made inside a LogCapture goes back to the level its properties give it, not WARN. */
    @Test
    void aLoggerMadeDuringALogCaptureGetsItsConfiguredLevelAfterIt() {
        System.setProperty(PREFIX + "org.apache.kafka", "error");
        org.slf4j.Logger made;
        try (LogCapture log = LogCapture.at("info", "org.apache.kafka.clients")) {
            made = org.slf4j.LoggerFactory.getLogger("org.apache.kafka.clients.MadeDuringCapture" + System.nanoTime());
            assertTrue(made.isInfoEnabled(), "at the capture's level meanwhile");
        }
        assertTrue(made.isErrorEnabled() && !made.isWarnEnabled(), "ERROR after, from org.apache.kafka=error");
    }

    @Test
    void theSwitchPutsEveryOneAtItsLevel() {
        clearAll();
        System.setProperty(TestkitLogging.SWITCH, "warn");
        TestkitLogging.apply();
        TestkitLogging.QUIET.keySet().forEach(logger ->
                assertEquals("warn", System.getProperty(PREFIX + logger), logger));
    }
}
