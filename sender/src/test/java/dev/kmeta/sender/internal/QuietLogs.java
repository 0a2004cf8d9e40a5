package dev.kmeta.sender.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Raises some slf4j-simple loggers to ERROR while open (through its per-logger level field), and restores them on
 * close: for tests that provoke, by design, thousands of expected WARN lines. Test-only: relies on slf4j-simple 2.0
 * internals and fails loudly if they are not there.
 */
final class QuietLogs implements AutoCloseable {
    private static final int ERROR = 40;

    private final Field level;
    private final Map<Logger, Integer> saved = new LinkedHashMap<>();

    private QuietLogs() throws ReflectiveOperationException {
        level = Class.forName("org.slf4j.simple.SimpleLogger").getDeclaredField("currentLogLevel");
        level.setAccessible(true);
    }

    static QuietLogs of(String... loggerNames) {
        try {
            QuietLogs q = new QuietLogs();
            for (String name : loggerNames) {
                Logger logger = LoggerFactory.getLogger(name);
                q.saved.put(logger, q.level.getInt(logger));
                q.level.setInt(logger, ERROR);
            }
            return q;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("QuietLogs needs slf4j-simple 2.0 as the slf4j binding", e);
        }
    }

    @Override
    public void close() {
        saved.forEach((logger, value) -> {
            try {
                level.setInt(logger, value);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
