package dev.kmeta.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Command-line options of the benchmark programs ({@code --key value}) and the facts every result line carries (JVM,
 * load average). Stateless.
 */
final class Args {
    private Args() {
    }

    /**
     * The options given in {@code args} over {@code defaults}; an option not in {@code defaults}, or one without a
     * value, is an error that names it.
     */
    static Map<String, String> parse(String[] args, Map<String, String> defaults) {
        Map<String, String> opts = new LinkedHashMap<>(defaults);
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || !defaults.containsKey(a.substring(2))) {
                throw new IllegalArgumentException("unknown option '" + a + "'; known: --"
                        + String.join(", --", defaults.keySet()));
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option '" + a + "' needs a value");
            }
            opts.put(a.substring(2), args[++i]);
        }
        return opts;
    }

    /** An integer option, with an error naming the key if it is not one. */
    static int intOpt(Map<String, String> opts, String key) {
        try {
            return Integer.parseInt(opts.get(key));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + key + " must be an integer: " + opts.get(key), e);
        }
    }

    /** The JVM, its heap and its GC, for the record. */
    static String jvm() {
        StringBuilder gcs = new StringBuilder();
        ManagementFactory.getGarbageCollectorMXBeans().forEach(g -> gcs.append(gcs.length() == 0 ? "" : ", ")
                .append(g.getName()));
        return "Java " + System.getProperty("java.runtime.version") + ", max heap "
                + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MB, GC " + gcs + ", load " + load();
    }

    /** The 1, 5 and 15 minute load averages ({@code /proc/loadavg}), or "?" where there is none. */
    static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
