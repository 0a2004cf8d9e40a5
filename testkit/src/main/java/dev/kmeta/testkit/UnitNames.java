package dev.kmeta.testkit;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * kmeta's one naming rule for units in the exported API: a public method or field holding a number (a primitive,
 * its box, or a map of them) names its unit as the <b>last</b> word of its name: {@code Ms}, {@code Ns},
 * {@code Seconds} or {@code Bytes} ({@code waitTimeTotalNs}, {@code requestLatencyMaxMs}, JMX's
 * {@code getOldestTopicAgeSeconds}); a time quantity ({@code Time}, {@code Latency}, {@code Age}, {@code Delay},
 * {@code Backoff}, {@code Timeout}, {@code Interval}, {@code Elapsed}, {@code Remaining}, {@code Idle}) always names
 * one. A count of events names none ({@code waitTimeouts}). {@code Duration} needs no suffix. Names that mirror the
 * JDK ({@code nanoTime}, {@code milliTime}) are listed in {@link #MIRRORS_THE_JDK}.
 *
 * <p>Stateless; {@link ApiSurface#unitNameViolations()} is the entry point.
 */
final class UnitNames {
    private static final Set<String> UNITS = Set.of("Ms", "Ns", "Us", "Seconds", "Bytes", "Millis", "Nanos", "Micros");
    private static final Set<String> LAST_UNITS = Set.of("Ms", "Ns", "Seconds", "Bytes");
    private static final Set<String> TIME_WORDS = Set.of("Time", "Latency", "Age", "Ages", "Delay", "Backoff",
            "Timeout", "Interval", "Elapsed", "Remaining", "Idle");
    /** Named like the JDK method they stand for, on purpose. */
    static final Set<String> MIRRORS_THE_JDK = Set.of("nanoTime", "milliTime");
    private static final Set<Class<?>> NUMBERS = Set.of(long.class, int.class, double.class, float.class,
            Long.class, Integer.class, Double.class, Float.class);

    private UnitNames() {
    }

    static List<String> violations(List<Class<?>> classes) {
        List<String> out = new ArrayList<>();
        for (Class<?> c : classes) {
            for (Method m : c.getDeclaredMethods()) {
                if (ApiSurface.visible(c, m.getModifiers()) && !m.isSynthetic() && numeric(m.getGenericReturnType())) {
                    check(out, c.getName() + "." + m.getName() + "()", m.getName());
                }
            }
            for (Field f : c.getDeclaredFields()) {
                if (ApiSurface.visible(c, f.getModifiers()) && !f.isSynthetic() && numeric(f.getGenericType())) {
                    check(out, c.getName() + "." + f.getName(), f.getName());
                }
            }
        }
        return out;
    }

    private static void check(List<String> out, String where, String name) {
        if (MIRRORS_THE_JDK.contains(name)) {
            return;
        }
        List<String> words = words(name);
        String last = words.get(words.size() - 1);
        for (int i = 0; i < words.size() - 1; i++) {
            if (UNITS.contains(words.get(i))) {
                out.add(where + ": the unit " + words.get(i) + " must end the name");
                return;
            }
        }
        if (UNITS.contains(last) && !LAST_UNITS.contains(last)) {
            out.add(where + ": spell the unit " + last + " as one of " + LAST_UNITS);
        } else if (!LAST_UNITS.contains(last) && words.stream().anyMatch(TIME_WORDS::contains)) {
            out.add(where + ": a time needs a unit suffix (Ms, Ns, Seconds)");
        }
    }

    /** {@code getRequestLatencyTotalMs} as get, Request, Latency, Total, Ms; {@code MAX_BLOCK_MS} as Max, Block, Ms. */
    static List<String> words(String name) {
        List<String> out = new ArrayList<>();
        for (String part : name.split("_")) {
            if (part.isEmpty()) {
                continue;
            }
            if (part.equals(part.toUpperCase())) {
                out.add(part.charAt(0) + part.substring(1).toLowerCase());
                continue;
            }
            for (String w : part.split("(?<=[a-z0-9])(?=[A-Z])")) {
                out.add(Character.toUpperCase(w.charAt(0)) + w.substring(1));
            }
        }
        return out;
    }

    private static boolean numeric(Type t) {
        if (t instanceof Class<?> c) {
            return NUMBERS.contains(c);
        }
        if (t instanceof java.lang.reflect.ParameterizedType p && p.getRawType() == Map.class) {
            return numeric(p.getActualTypeArguments()[1]);
        }
        return false;
    }
}
