package dev.kmeta.testkit;

import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The rule for time in kmeta's exported API (issue 25, item 4: one way to do each thing), checked by reflection over
 * an {@link ApiSurface}:
 * <ul>
 *   <li><b>Blocking waits take a {@code Deadline}</b> (one budget for a whole send, kafka-clients' {@code max.block.ms}
 *       model) or nothing: no method takes a {@code long} or a {@code TimeUnit} as a budget, and a {@code Duration}
 *       only where it configures or makes a deadline (below).</li>
 *   <li><b>A {@code Deadline} is made on a clock one names</b>: by the instance ({@code MetadataClient.newDeadline},
 *       {@code newSendDeadline}: its {@code Ticker}), or by {@code Deadline.after(Duration, Ticker)} with a ticker the
 *       caller holds. A static factory without a {@code Ticker} parameter (the system clock, whatever the instance runs
 *       on) is a violation; so is an instance method making one on a type that is no {@code MetadataClient}.</li>
 *   <li><b>Configuration durations are {@code Duration}</b>, in a builder (a class named {@code ...Builder}); the
 *       properties keep Kafka's {@code ...ms} keys with {@code long} values (they are strings, not signatures).</li>
 *   <li><b>Reported times are {@code long} with the unit in the name</b> ({@code ...Ns}, {@code ...Ms},
 *       {@code ...Seconds}): no method returns a {@code Duration}, and a method named for a time ({@code ...Age},
 *       {@code ...Time}, {@code ...Elapsed}, {@code ...Remaining}, {@code ...Latency}, {@code ...Delay},
 *       {@code ...Timeout}, {@code ...Backoff}) without a unit after it is a violation.</li>
 * </ul>
 * A method that overrides one of a supertype outside kmeta (Kafka's {@code Producer.close(Duration)}, the JDK's)
 * keeps that contract's shape and is not checked. A {@code long} parameter that is no budget (the {@code Ticker}
 * seam's own {@code park(Object, long nanos)}) is named, with why, in the caller's {@code allowed} map.
 */
public final class TimeShapes {
    private static final String DEADLINE = "dev.kmeta.metadata.Deadline";
    private static final String TICKER = "dev.kmeta.metadata.Ticker";
    private static final String METADATA_CLIENT = "dev.kmeta.metadata.MetadataClient";
    private static final Pattern TIME_WITHOUT_UNIT =
            Pattern.compile(".*(Age|Time|Elapsed|Remaining|Latency|Delay|Timeout|Backoff|Duration)$");
    private static final Pattern UNIT = Pattern.compile(".*(Ns|Ms|Seconds|[Nn]ano|[Mm]illi).*");

    private TimeShapes() {
    }

    /**
     * One line per violation of the rule in {@code api}, e.g.
     * {@code dev.kmeta.metadata.Deadline.after(long): a Deadline factory on an implicit clock}.
     *
     * @param allowed signature ({@code Class.method(type,...)}, simple type names) to the reason it is no violation
     */
    public static List<String> violations(ApiSurface api, Map<String, String> allowed) {
        List<String> out = new ArrayList<>();
        if (api.classes().isEmpty()) {
            out.add("no exported class found: nothing was checked");
        }
        for (Class<?> c : api.classes()) {
            List<Executable> members = new ArrayList<>(Arrays.asList(c.getDeclaredConstructors()));
            members.addAll(Arrays.asList(c.getDeclaredMethods()));
            for (Executable e : members) {
                if (!ApiSurface.isVisible(c, e.getModifiers()) || e.isSynthetic()
                        || (e instanceof Method m && m.isBridge())) {
                    continue;
                }
                String sig = signature(c, e);
                if (allowed.containsKey(sig) || (e instanceof Method m && overridesForeign(c, m))) {
                    continue;
                }
                String why = violation(c, e);
                if (why != null) {
                    out.add(sig + ": " + why);
                }
            }
        }
        return out;
    }

    private static String violation(Class<?> c, Executable e) {
        Class<?>[] params = e.getParameterTypes();
        Class<?> returns = e instanceof Method m ? m.getReturnType() : c;
        boolean makesDeadline = e instanceof Method && returns.getName().equals(DEADLINE);
        if (makesDeadline && Modifier.isStatic(e.getModifiers())
                && Arrays.stream(params).noneMatch(p -> p.getName().equals(TICKER))) {
            return "a Deadline factory on an implicit clock (take a Ticker, or make it on the instance)";
        }
        if (makesDeadline && !Modifier.isStatic(e.getModifiers()) && !isA(c, METADATA_CLIENT)) {
            return "a Deadline made off the instance's clock (only a MetadataClient makes one, on its ticker)";
        }
        for (Class<?> p : params) {
            if (p.getName().equals("java.util.concurrent.TimeUnit")) {
                return "a long + TimeUnit budget (a blocking wait takes a Deadline)";
            }
            if (p == long.class || p == Long.class) {
                return "a raw long (a blocking wait takes a Deadline; a configuration time is a Duration in a builder)";
            }
            if (p.getName().equals("java.time.Duration") && !makesDeadline && !c.getSimpleName().endsWith("Builder")) {
                return "a Duration outside a builder (a blocking wait takes a Deadline)";
            }
        }
        if (e instanceof Method m) {
            if (returns.getName().equals("java.time.Duration") && !c.getSimpleName().endsWith("Builder")) {
                return "returns a Duration (a reported time is a long with the unit in the name)";
            }
            if ((returns == long.class || returns == double.class || returns == int.class)
                    && m.getParameterCount() == 0 && TIME_WITHOUT_UNIT.matcher(m.getName()).matches()
                    && !UNIT.matcher(m.getName()).matches()) {
                return "a time without its unit in the name (...Ns, ...Ms, ...Seconds)";
            }
        }
        return null;
    }

    /** {@code Class.method(Type,Type)} with simple type names, as the {@code allowed} map keys it. */
    public static String signature(Class<?> c, Executable e) {
        String name = e instanceof Method ? e.getName() : "<init>";
        return c.getName() + "." + name + Arrays.stream(e.getParameterTypes()).map(Class::getSimpleName)
                .collect(Collectors.joining(",", "(", ")"));
    }

    private static boolean isA(Class<?> c, String typeName) {
        for (Class<?> t : supertypes(c)) {
            if (t.getName().equals(typeName)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code m} overrides (or implements) a method of a supertype outside kmeta: that contract's shape. */
    private static boolean overridesForeign(Class<?> c, Method m) {
        if (Modifier.isStatic(m.getModifiers())) {
            return false;
        }
        for (Class<?> t : supertypes(c)) {
            if (t == c || t.getName().startsWith("dev.kmeta.")) {
                continue;
            }
            try {
                t.getDeclaredMethod(m.getName(), m.getParameterTypes());
                return true;
            } catch (NoSuchMethodException absent) {
                // not this one
            }
        }
        return false;
    }

    private static Set<Class<?>> supertypes(Class<?> c) {
        Set<Class<?>> seen = new HashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>(List.of(c));
        while (!todo.isEmpty()) {
            Class<?> t = todo.pop();
            if (t == null || !seen.add(t)) {
                continue;
            }
            todo.push(t.getSuperclass() == null ? Object.class : t.getSuperclass());
            todo.addAll(Arrays.asList(t.getInterfaces()));
        }
        return seen;
    }
}
