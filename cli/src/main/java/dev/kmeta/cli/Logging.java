package dev.kmeta.cli;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The command's logging, decided before any logger exists: off by default ({@code simplelogger.properties}: the tools
 * say what they found in their own words, and kafka-clients' ERROR lines, with stack traces, would be mixed into that),
 * and with {@code --verbose} kmeta's loggers at INFO and everything else (kafka-clients, the embedded brokers) at WARN,
 * on stderr. Set through slf4j-simple's system properties, which it reads when it starts and when a logger is made;
 * a property the user set ({@code KMETA_JAVA_OPTS=-Dorg.slf4j.simpleLogger...}) is left as it is. Loggers made before
 * (in a test JVM, say) keep their level. Not thread-safe: called once, before the command runs.
 */
final class Logging {
    private static final String PREFIX = "org.slf4j.simpleLogger.";

    private Logging() {
    }

    /** Applies {@code --verbose} (or the quiet default, which the resource file already gives). */
    static void configure(boolean verbose) {
        if (!verbose) {
            return;
        }
        Map<String, String> levels = new LinkedHashMap<>();
        levels.put(PREFIX + "defaultLogLevel", "warn");
        levels.put(PREFIX + "log.dev.kmeta", "info");
        levels.put(PREFIX + "log.org.apache.kafka", "warn");
        levels.put(PREFIX + "log.kafka", "warn");
        levels.put(PREFIX + "log.state.change.logger", "warn");
        levels.forEach((key, level) -> {
            if (System.getProperty(key) == null) {
                System.setProperty(key, level);
            }
        });
    }
}
