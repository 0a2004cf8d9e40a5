package dev.kmeta.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * kmeta's one duration syntax, the same for every option that takes a duration ({@code --timeout},
 * {@code --interval}, {@code --duration}): a whole number with a unit, {@code 500ms}, {@code 10s}, {@code 2m},
 * {@code 1h}; a bare number is seconds. Stateless and thread-safe.
 */
final class Durations {
    /** What the messages suggest. */
    static final String EXAMPLES = "e.g. 500ms, 10s, 2m";
    /** The longest duration any option takes: a year (longer would overflow nanosecond deadlines soon enough). */
    static final long MAX_MS = 8_760L * 3_600_000L;
    private static final Pattern FORMAT = Pattern.compile("([-+]?)(\\d{1,15})\\s*(ms|s|m|h)?");

    private Durations() {
    }

    /**
     * Parses a duration that must be more than 0.
     *
     * @return the duration in milliseconds, 1..{@link #MAX_MS}
     * @throws IllegalArgumentException with one line saying what is wrong with {@code text}
     */
    static long parsePositiveMillis(String text) {
        Matcher m = FORMAT.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; use " + EXAMPLES
                    + " (a bare number is seconds)");
        }
        long amount = Long.parseLong(m.group(2));
        if ("-".equals(m.group(1)) && amount != 0) {
            throw new IllegalArgumentException("'" + text + "' is negative; a duration must be more than 0 ("
                    + EXAMPLES + ")");
        }
        long unitMs = switch (m.group(3) == null ? "s" : m.group(3)) {
            case "h" -> 3_600_000L;
            case "m" -> 60_000L;
            case "s" -> 1_000L;
            default -> 1L;
        };
        if (amount == 0) {
            throw new IllegalArgumentException("'" + text + "' must be more than 0 (" + EXAMPLES + ")");
        }
        if (amount > MAX_MS / unitMs) {
            throw new IllegalArgumentException("'" + text + "' is too long: at most " + format(MAX_MS));
        }
        return amount * unitMs;
    }

    /** {@code ms} the way it would be typed: {@code 1h}, {@code 2m}, {@code 10s}, {@code 1500ms}. */
    static String format(long ms) {
        if (ms != 0 && ms % 3_600_000L == 0) {
            return ms / 3_600_000L + "h";
        }
        if (ms != 0 && ms % 60_000L == 0) {
            return ms / 60_000L + "m";
        }
        if (ms != 0 && ms % 1_000L == 0) {
            return ms / 1_000L + "s";
        }
        return ms + "ms";
    }

    /** The picocli converter: a positive duration in milliseconds, or a one-line conversion error (exit 2). */
    static final class Millis implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return parsePositiveMillis(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
