package dev.kmeta.testkit;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Quiet in-process brokers and Kafka clients in tests, by default: when the JUnit Platform opens a test session in a
 * JVM whose test class path holds testkit (found through {@code META-INF/services}, before any test class loads), the
 * brokers' loggers are turned off and Kafka's client side is set to ERROR - through slf4j-simple's
 * {@code org.slf4j.simpleLogger.log.*} system properties, which it reads when a logger is made and which win over a
 * {@code simplelogger.properties} file. A passing build then prints no broker's expected halts, refused connections or
 * twice-registered MBeans, and no client's "could not be established" WARN for the brokers a test stops; a failing
 * test still fails with its cause (JUnit's), and tests that read these logs lower them with {@link LogCapture}.
 *
 * <p>One switch turns them back up: {@code -D}{@value #SWITCH}{@code =warn} (or {@code info}, {@code debug}) sets every
 * one of these loggers to that level instead ({@code ./mvnw -B verify -Dkmeta.testkit.logs=warn}, passed on to the
 * test JVMs by the build). A property set by hand ({@code -Dorg.slf4j.simpleLogger.log.kafka=info}) is left as it is.
 * With another slf4j binding than slf4j-simple the properties are ignored: configure that binding instead.
 *
 * <p>Thread-safe (sets system properties once per session).
 */
public final class TestkitLogging implements LauncherSessionListener {
    /** The switch: unset, the quiet defaults; a level, every logger of {@link #QUIET} at that level. */
    public static final String SWITCH = "kmeta.testkit.logs";
    private static final String PREFIX = "org.slf4j.simpleLogger.log.";

    /**
     * The loggers and their quiet levels: the Scala broker, its state-change log and metrics, the Java server
     * packages - off; everything else of Kafka's (the clients, their network layer) at ERROR.
     */
    static final Map<String, String> QUIET = quiet();

    /** Public for the {@link java.util.ServiceLoader}; tests need not make one. */
    public TestkitLogging() {
    }

    private static Map<String, String> quiet() {
        Map<String, String> levels = new LinkedHashMap<>();
        for (String broker : new String[] {"kafka", "state.change.logger", "com.yammer.metrics",
            "org.apache.kafka.server", "org.apache.kafka.controller", "org.apache.kafka.raft",
            "org.apache.kafka.metadata", "org.apache.kafka.image", "org.apache.kafka.storage",
            "org.apache.kafka.coordinator", "org.apache.kafka.queue", "org.apache.kafka.snapshot",
            "org.apache.kafka.network", "org.apache.kafka.security"}) {
            levels.put(broker, "off");
        }
        levels.put("org.apache.kafka", "error");
        return Map.copyOf(levels);
    }

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        apply();
    }

    /** Sets the loggers' levels (the quiet ones, or the switch's) where no property names them yet. */
    static void apply() {
        String wanted = System.getProperty(SWITCH);
        boolean quiet = wanted == null || wanted.isBlank();
        QUIET.forEach((logger, level) -> {
            String key = PREFIX + logger;
            if (System.getProperty(key) == null) {
                System.setProperty(key, quiet ? level : wanted.trim());
            }
        });
    }
}
