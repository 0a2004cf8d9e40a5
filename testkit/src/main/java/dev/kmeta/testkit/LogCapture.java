package dev.kmeta.testkit;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Captures everything slf4j-simple writes (it writes to {@code System.err}, looked up at each line) while open, with
 * the loggers under some name prefixes lowered to a level (DEBUG, TRACE) meanwhile: loggers that exist already (through
 * slf4j-simple's per-logger level field) and loggers made meanwhile (through its {@code org.slf4j.simpleLogger.log.*}
 * system properties, read when a logger is made). On close, {@code System.err}, the levels and the properties are
 * restored; loggers made meanwhile go back to the default level.
 *
 * <p>Everything any thread of this JVM logs meanwhile is captured (in-process brokers included). Test-only:
 * relies on slf4j-simple 2.0 internals (the test class path must carry slf4j-simple), and fails loudly if they are
 * not there. Thread-safe: lines from any thread go to one buffer; open one capture at a time per JVM.
 */
public final class LogCapture implements AutoCloseable {
    private static final String PROPERTY_PREFIX = "org.slf4j.simpleLogger.log.";

    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    private final PrintStream originalErr = System.err;
    private final List<String> prefixes;
    private final Map<Logger, Integer> savedLevels = new HashMap<>();
    private final Map<String, String> savedProperties = new HashMap<>();
    private final String levelName;
    private final int level;
    private final Field levelField;
    private final ConcurrentMap<String, Logger> loggers;

    private LogCapture(String levelName, List<String> prefixes) throws ReflectiveOperationException {
        this.prefixes = prefixes;
        this.levelName = levelName;
        this.level = levelOf(levelName);
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        Field map = factory.getClass().getDeclaredField("loggerMap");
        map.setAccessible(true);
        @SuppressWarnings("unchecked")
        ConcurrentMap<String, Logger> m = (ConcurrentMap<String, Logger>) map.get(factory);
        this.loggers = m;
        this.levelField = Class.forName("org.slf4j.simple.SimpleLogger").getDeclaredField("currentLogLevel");
        levelField.setAccessible(true);
    }

    /**
     * Starts capturing, with the loggers under these prefixes (e.g. {@code "dev.kmeta"}) at {@code level}
     * ({@code "debug"}, {@code "trace"}...).
     */
    public static LogCapture at(String level, String... prefixes) {
        LogCapture capture;
        try {
            capture = new LogCapture(level, List.of(prefixes));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("LogCapture needs slf4j-simple 2.0 as the slf4j binding", e);
        }
        capture.start();
        return capture;
    }

    private void start() {
        for (String prefix : prefixes) {
            savedProperties.put(prefix, System.getProperty(PROPERTY_PREFIX + prefix));
            System.setProperty(PROPERTY_PREFIX + prefix, levelName);
        }
        for (Logger logger : loggers.values()) {
            if (matches(logger.getName())) {
                savedLevels.put(logger, level(logger));
                setLevel(logger, level);
            }
        }
        System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    }

    /** What was written so far. */
    public synchronized String text() {
        System.err.flush();
        return buffer.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        System.err.flush();
        System.setErr(originalErr);
        savedProperties.forEach((prefix, value) -> {
            if (value == null) {
                System.clearProperty(PROPERTY_PREFIX + prefix);
            } else {
                System.setProperty(PROPERTY_PREFIX + prefix, value);
            }
        });
        for (Logger logger : loggers.values()) {
            if (matches(logger.getName())) {
                Integer saved = savedLevels.get(logger);
                setLevel(logger, saved != null ? saved : configuredLevel(logger));
            }
        }
    }

    /**
     * The level slf4j-simple gives a logger when it makes it - from the {@code org.slf4j.simpleLogger.log.*}
     * properties of its name and its parents' (TestkitLogging's, a module's file), else the default: for a logger
     * made during the capture. (The default alone put a Kafka client's logger made meanwhile at WARN for good, above
     * the ERROR TestkitLogging gives it.)
     */
    private static int configuredLevel(Logger logger) {
        try {
            java.lang.reflect.Method compute = logger.getClass().getDeclaredMethod("recursivelyComputeLevelString");
            compute.setAccessible(true);
            Object level = compute.invoke(logger);
            return level == null ? defaultLevel() : levelOf(level.toString());
        } catch (ReflectiveOperationException | RuntimeException e) {
            return defaultLevel();
        }
    }

    private boolean matches(String name) {
        for (String prefix : prefixes) {
            if (name.equals(prefix) || name.startsWith(prefix + ".")) {
                return true;
            }
        }
        return false;
    }

    private int level(Logger logger) {
        try {
            return levelField.getInt(logger);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private void setLevel(Logger logger, int level) {
        try {
            levelField.setInt(logger, level);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The level of a logger with no level of its own: the configured default (WARN in this build). */
    private static int defaultLevel() {
        return levelOf(System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "info"));
    }

    /** slf4j-simple's number for a level name. */
    private static int levelOf(String name) {
        switch (name.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "trace":
                return 0;
            case "debug":
                return 10;
            case "warn":
                return 30;
            case "error":
                return 40;
            case "off":
                return 50;
            default:
                return 20;
        }
    }
}
