package dev.kmeta.sender.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLConnection;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * Which kafka-clients a class of it was actually loaded from, and which other kafka-clients its class loader also
 * sees. {@code AppInfoParser} reads the first {@value #MARKER} the class loader finds - and every Kafka jar holds one
 * (kafka-server, kafka-raft...), so with another Kafka jar, or two kafka-clients, on the class path it need not be the
 * jar the classes come from: kmeta then named one version and ran on the other (issue 40). Here the jars that hold
 * the class itself are found ({@code ClassLoader.getResources} of its class file), the first is the one it was loaded
 * from, and each one's version is read from the marker in that jar.
 *
 * <p>Immutable; found by {@link #of(Class)}, which never throws.
 */
public final class KafkaClientsJars {
    /** The resource every Kafka jar holds: its version and commit id. */
    public static final String MARKER = "kafka/kafka-version.properties";

    /** One kafka-clients the class loader sees: where it is, and what it says it is ("unknown" if it cannot tell). */
    public record Jar(String location, String version, String commitId) {
        @Override
        public String toString() {
            return "kafka-clients " + version + " (" + location + ")";
        }
    }

    private final Jar loaded;
    private final List<Jar> others;

    private KafkaClientsJars(Jar loaded, List<Jar> others) {
        this.loaded = loaded;
        this.others = others;
    }

    /**
     * The kafka-clients {@code loadedClass} (a class only kafka-clients has) comes from, and every other jar or folder
     * its class loader sees that holds the class too.
     */
    public static KafkaClientsJars of(Class<?> loadedClass) {
        String home = normalized(codeSource(loadedClass));
        Jar loaded = null;
        List<Jar> others = new ArrayList<>();
        ClassLoader loader = loadedClass.getClassLoader();
        String classFile = loadedClass.getName().replace('.', '/') + ".class";
        try {
            List<URL> copies = loader == null ? List.of() : Collections.list(loader.getResources(classFile));
            for (URL copy : copies) {
                String location = locationOf(copy, classFile);
                Properties p = read(markerNextTo(copy, classFile));
                Jar jar = new Jar(location, p.getProperty("version", "unknown"), p.getProperty("commitId", "unknown"));
                if (loaded == null && normalized(location).equals(home)) {
                    loaded = jar;
                } else {
                    others.add(jar);
                }
            }
        } catch (IOException | RuntimeException e) {
            // unreadable: nothing found here; the caller falls back on AppInfoParser
        }
        return new KafkaClientsJars(loaded, List.copyOf(others));
    }

    /**
     * The kafka-clients the class came from (version "unknown" if its jar holds no marker: a shaded jar), or null if
     * it cannot be told (a class loader that does not list resources).
     */
    public Jar loaded() {
        return loaded;
    }

    /** The other kafka-clients the class loader sees: none on a sound class path. */
    public List<Jar> others() {
        return others;
    }

    /**
     * What to warn of when the class loader sees more than one kafka-clients, or null. Names the one the classes come
     * from - the one kmeta runs on - and the others.
     */
    public String warning() {
        int count = others.size() + (loaded == null ? 0 : 1);
        if (count < 2) {
            return null;
        }
        return count + " kafka-clients on the class path: kmeta runs on " + (loaded == null
                ? "the one its classes come from (its jar says no version)" : loaded.toString())
                + ", whose classes are loaded; also " + others.stream().map(Jar::toString)
                .collect(Collectors.joining(", ")) + ". Keep one: a class the loaded jar lacks would come from "
                + "another version (mvn dependency:tree or gradle dependencies shows what brings each)";
    }

    private static String codeSource(Class<?> c) {
        try {
            CodeSource source = c.getProtectionDomain().getCodeSource();
            return source != null && source.getLocation() != null ? source.getLocation().toString() : null;
        } catch (SecurityException e) {
            return null;
        }
    }

    /** Where a copy of the class is: the jar ({@code jar:<jar>!/org/...}) or the folder it is in. */
    static String locationOf(URL copy, String classFile) {
        String s = copy.toString();
        if (s.startsWith("jar:") && s.endsWith("!/" + classFile)) {
            return s.substring("jar:".length(), s.length() - ("!/" + classFile).length());
        }
        return s.endsWith(classFile) ? s.substring(0, s.length() - classFile.length()) : s;
    }

    /** The marker in the jar or folder of a copy of the class. */
    private static URL markerNextTo(URL copy, String classFile) throws IOException {
        String s = copy.toString();
        if (!s.endsWith(classFile)) {
            throw new IOException("not a copy of " + classFile + ": " + s);
        }
        return new URL(s.substring(0, s.length() - classFile.length()) + MARKER);
    }

    /** A location as a code source and a marker may spell it: without "jar:" before and "!/" or "/" after. */
    private static String normalized(String location) {
        if (location == null) {
            return null;
        }
        String s = location.startsWith("jar:") ? location.substring("jar:".length()) : location;
        while (s.endsWith("/") || s.endsWith("!")) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }

    private static Properties read(URL marker) {
        Properties p = new Properties();
        try {
            URLConnection connection = marker.openConnection();
            connection.setUseCaches(false); // no jar file kept open behind the class loader's back
            try (InputStream in = connection.getInputStream()) {
                p.load(in);
            }
        } catch (IOException e) {
            // no marker there (a shaded jar, a folder of classes): the version is unknown
        }
        return p;
    }
}
