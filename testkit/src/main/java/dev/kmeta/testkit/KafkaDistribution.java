package dev.kmeta.testkit;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The jars of one Kafka broker version ({@code kafka_2.13} and everything it needs), to run brokers and controllers
 * of that version in child JVMs: {@link KafkaCluster.Builder#distribution(KafkaDistribution)}. The build resolves
 * them from Maven Central and writes their class path to a file (the modules under {@code brokers/}, with
 * {@code maven-dependency-plugin:build-classpath}); a test only reads that file, it never downloads anything.
 *
 * <p>Tests find a distribution by name through a system property the build sets,
 * {@code kmeta.testkit.kafka.<name>.classpath} (e.g. {@code kmeta.testkit.kafka.3.9.classpath}); and
 * {@value #DEFAULT_PROPERTY}, when set, names the classpath file every {@link KafkaCluster} uses unless told
 * otherwise: a test JVM whose own kafka-clients is not the brokers' (an older client's test run) sets it.
 *
 * <p>Immutable.
 */
public final class KafkaDistribution {
    /** System property: the classpath file of the distribution every cluster uses by default (unset: in-process). */
    public static final String DEFAULT_PROPERTY = "kmeta.testkit.kafka.distribution";

    private static final Pattern KAFKA_JAR = Pattern.compile("kafka_2\\.1[23]-([0-9][^" + Pattern.quote(File.separator)
            + "]*)\\.jar$");

    private final Path source;
    private final List<String> entries;
    private final String version;

    private KafkaDistribution(Path source, List<String> entries, String version) {
        this.source = source;
        this.entries = List.copyOf(entries);
        this.version = version;
    }

    /**
     * The distribution whose class path the file holds (entries separated by the platform's path separator or by
     * line breaks, as {@code dependency:build-classpath} writes them).
     *
     * @throws IllegalStateException if the file or one of its jars is missing, or no {@code kafka_2.13} jar is in it
     */
    public static KafkaDistribution fromClasspathFile(Path file) {
        Objects.requireNonNull(file, "file");
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("no Kafka distribution class path at " + file.toAbsolutePath()
                    + " (build the brokers/ module that writes it: ./mvnw -pl <module> -am test)", e);
        }
        List<String> entries = new ArrayList<>();
        String version = null;
        for (String entry : text.split("[" + Pattern.quote(File.pathSeparator) + "\\r\\n]+")) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            if (!Files.exists(Paths.get(e))) {
                throw new IllegalStateException("Kafka distribution " + file + " names a missing jar: " + e);
            }
            Matcher m = KAFKA_JAR.matcher(e);
            if (m.find()) {
                version = m.group(1);
            }
            entries.add(e);
        }
        if (version == null) {
            throw new IllegalStateException("no kafka_2.13 jar in the Kafka distribution class path " + file);
        }
        return new KafkaDistribution(file, entries, version);
    }

    /**
     * The distribution the build named {@code name}, through the system property
     * {@code kmeta.testkit.kafka.<name>.classpath}.
     *
     * @throws IllegalStateException if the property is not set (the build of this module does not provide it)
     */
    public static KafkaDistribution named(String name) {
        String property = "kmeta.testkit.kafka." + name + ".classpath";
        String file = System.getProperty(property);
        if (file == null || file.isBlank()) {
            throw new IllegalStateException("no Kafka " + name + " distribution: the system property " + property
                    + " (set by the build, e.g. in Surefire's systemPropertyVariables) names its class path file");
        }
        return fromClasspathFile(Paths.get(file));
    }

    /** The distribution named by {@value #DEFAULT_PROPERTY}, or null when it is not set. */
    static KafkaDistribution fromDefaultProperty() {
        String file = System.getProperty(DEFAULT_PROPERTY);
        return file == null || file.isBlank() ? null : fromClasspathFile(Paths.get(file));
    }

    /** The Kafka version, from the name of its {@code kafka_2.13-<version>.jar} (e.g. "3.9.2"). */
    public String version() {
        return version;
    }

    /** Whether the version is at least {@code major.minor}. */
    public boolean atLeast(int major, int minor) {
        String[] parts = version.split("[.-]");
        int ma = Integer.parseInt(parts[0]);
        int mi = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
        return ma != major ? ma > major : mi >= minor;
    }

    /** The child JVM's class path: the distribution, then the testkit's own classes (for {@link ChildBroker}). */
    String classpath() {
        List<String> all = new ArrayList<>(entries);
        all.add(testkitLocation());
        return String.join(File.pathSeparator, all);
    }

    private static String testkitLocation() {
        try {
            return Paths.get(ChildBroker.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException | RuntimeException e) {
            throw new IllegalStateException("cannot tell where the testkit's classes are", e);
        }
    }

    @Override
    public String toString() {
        return "Kafka " + version + " (" + source + ")";
    }
}
