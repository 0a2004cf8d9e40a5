package dev.kmeta.compat;

import dev.kmeta.testkit.TestClients;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.examples.ExampleProducer;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.producer.KmetaProducer;
import dev.kmeta.sender.KafkaMetadata;
import java.io.File;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The kafka-clients jars the build copied to {@code target/kafka-clients} (one per supported minor, and the refused
 * 3.9), and class loaders that run kmeta's compiled classes on one of them instead of this JVM's own 4.4.
 */
final class ClientJars {
    private ClientJars() {
    }

    /** The supported versions the build lists (4.0.x ... 4.4.x). */
    static List<String> supported() {
        return Arrays.asList(System.getProperty("kmeta.compat.clients.versions", "").split(","));
    }

    /**
     * Every kafka-clients 4.x release the build copied (4.0.0 ... 4.4.0, each patch): the linkage and the pinned call
     * traces run on each; the supported list if the build names none.
     */
    static List<String> releases() {
        String releases = System.getProperty("kmeta.compat.clients.releases", "");
        return releases.isBlank() ? supported() : Arrays.asList(releases.split(","));
    }

    /** The version kmeta must refuse (3.9.x). */
    static String refused() {
        return System.getProperty("kmeta.compat.clients.refused");
    }

    static Path jar(String version) {
        Path jar = Paths.get(System.getProperty("kmeta.compat.clients.dir", "target/kafka-clients"),
                "kafka-clients-" + version + ".jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " missing: the build copies it at process-test-resources");
        }
        return jar;
    }

    /** Where a class of this JVM was loaded from (a jar or a classes directory). */
    static Path locationOf(Class<?> c) {
        try {
            return Paths.get(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A class loader that loads {@code org.apache.kafka.*} from the given jar only and {@code dev.kmeta.*} from the
     * given locations only (so kmeta's classes link against that kafka-clients), everything else from this JVM.
     */
    static ClassLoader isolated(Path kafkaClients, List<Path> kmetaLocations) {
        List<URL> urls = new ArrayList<>();
        try {
            urls.add(kafkaClients.toUri().toURL());
            for (Path p : kmetaLocations) {
                urls.add(p.toUri().toURL());
            }
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
        return new ChildFirst(urls.toArray(new URL[0]), ClientJars.class.getClassLoader());
    }

    /** Child first for kafka-clients and kmeta; the rest (slf4j, jctools, compression libraries) from the parent. */
    private static final class ChildFirst extends URLClassLoader {
        ChildFirst(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("org.apache.kafka.") && !name.startsWith("dev.kmeta.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name); // never the parent's: a class missing here is missing in that version
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        @Override
        public URL getResource(String name) {
            URL own = findResource(name); // kafka/kafka-version.properties: this version's, not the parent's
            return own != null ? own : super.getResource(name);
        }

        @Override
        public java.util.Enumeration<URL> getResources(String name) throws java.io.IOException {
            // kafka-clients' classes and marker: this version's alone, as classes load (kmeta warns of a second
            // kafka-clients, which it finds by the class files' copies)
            return name.startsWith("kafka/") || name.startsWith("org/apache/kafka/") ? findResources(name)
                    : super.getResources(name);
        }
    }

    /**
     * Runs {@link VersionProbe} on one kafka-clients version (its own class loader, with kmeta's compiled classes)
     * with these client properties and topic; returns what it saw (JDK types only).
     */
    static Map<String, Object> probe(String version, Map<String, Object> props, String topic) throws Exception {
        return run(version, VersionProbe.class, props, topic);
    }

    /**
     * Runs a probe (a {@code Function<Map<String, Object>, Map<String, Object>>} of this module, given
     * {@code props} and {@code topic}) on one kafka-clients version, in its own class loader with kmeta's compiled
     * classes (sender, metadata, cluster model, examples, kafka-producer); returns what it saw (JDK types only).
     */
    static Map<String, Object> run(String version, Class<?> probeClass, Map<String, Object> props, String topic)
            throws Exception {
        Map<String, Object> seen = runWith(version, probeClass, Map.of("props", Map.copyOf(props), "topic", topic));
        TestClients.report("%s", probeClass.getSimpleName() + ", kafka-clients " + version + ": " + seen);
        return seen;
    }

    /**
     * Runs a probe (a {@code Function<Map<String, Object>, Map<String, Object>>} of this module) on one kafka-clients
     * version, in its own class loader with kmeta's compiled classes, given {@code input} (JDK types only, or
     * {@code java.*} interfaces such as a {@code Runnable} the probe calls back); returns what it saw.
     */
    static Map<String, Object> runWith(String version, Class<?> probeClass, Map<String, Object> input)
            throws Exception {
        List<Path> kmeta = List.of(locationOf(KafkaMetadata.class), locationOf(MetadataClient.class),
                locationOf(Cluster.class), locationOf(ExampleProducer.class), locationOf(KmetaProducer.class),
                locationOf(probeClass));
        ClassLoader loader = isolated(jar(version), kmeta);
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            @SuppressWarnings("unchecked")
            Function<Map<String, Object>, Map<String, Object>> probe = (Function<Map<String, Object>, Map<String, Object>>)
                    loader.loadClass(probeClass.getName()).getDeclaredConstructor().newInstance();
            return probe.apply(input);
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    static String pathString(List<Path> paths) {
        StringBuilder b = new StringBuilder();
        for (Path p : paths) {
            b.append(b.length() == 0 ? "" : File.pathSeparator).append(p);
        }
        return b.toString();
    }
}
