package dev.kmeta.sender.internal;

import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kafka-clients version kmeta names is the one of the jar its classes come from (issue 40): not the first
 * {@code kafka/kafka-version.properties} the class loader finds (every Kafka jar holds one), and a second kafka-clients
 * on the class path is named in a warning. Class loaders of jars made here: a Kafka jar that is not kafka-clients
 * (the marker only) and an "other kafka-clients" (the marker and a copy of {@code KafkaException}), each of 3.9.1.
 */
class KafkaClientsJarsTest {
    private static final String CLASS_FILE = KafkaException.class.getName().replace('.', '/') + ".class";

    @TempDir
    Path dir;

    private URL jar(String name, String version, boolean withKafkaClientsClass) throws IOException {
        Path jar = dir.resolve(name + "-" + version + ".jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
            out.putNextEntry(new JarEntry(KafkaClientsJars.MARKER));
            out.write(("version=" + version + "\ncommitId=0ther\n").getBytes(StandardCharsets.ISO_8859_1));
            out.closeEntry();
            if (withKafkaClientsClass) {
                out.putNextEntry(new JarEntry(CLASS_FILE));
                try (InputStream in = KafkaException.class.getResourceAsStream("/" + CLASS_FILE)) {
                    in.transferTo(out);
                }
                out.closeEntry();
            }
        }
        return jar.toUri().toURL();
    }

    private static URL realJar() {
        return KafkaException.class.getProtectionDomain().getCodeSource().getLocation();
    }

    private static String realVersion() throws IOException {
        try (URLClassLoader alone = new URLClassLoader(new URL[] {realJar()}, null);
             InputStream in = alone.getResourceAsStream(KafkaClientsJars.MARKER)) {
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        }
    }

    private static String firstMarkersVersion(ClassLoader loader) throws IOException {
        try (InputStream in = loader.getResourceAsStream(KafkaClientsJars.MARKER)) {
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version"); // what AppInfoParser reads
        }
    }

    @Test
    void anotherKafkaJarFirstOnTheClassPathDoesNotChangeTheVersion() throws Exception {
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar("kafka-server-common", "3.9.1", false),
                realJar()}, null)) {
            assertEquals("3.9.1", firstMarkersVersion(loader), "the trap: the first marker is another jar's");

            KafkaClientsJars jars = KafkaClientsJars.of(Class.forName(KafkaException.class.getName(), false, loader));

            assertEquals(new KafkaClientsJars.Jar(realJar().toString(), realVersion(), jars.loaded().commitId()),
                    jars.loaded());
            assertEquals(List.of(), jars.others(), "kafka-server-common is no kafka-clients");
            assertNull(jars.warning());
        }
    }

    @Test
    void twoKafkaClientsAreWarnedOfNamingTheOneTheClassesComeFrom() throws Exception {
        URL other = jar("kafka-clients", "3.9.1", true);
        for (boolean otherFirst : new boolean[] {false, true}) {
            URL[] path = otherFirst ? new URL[] {other, realJar()} : new URL[] {realJar(), other};
            try (URLClassLoader loader = new URLClassLoader(path, null)) {
                KafkaClientsJars jars = KafkaClientsJars.of(Class.forName(KafkaException.class.getName(), false,
                        loader));

                KafkaClientsJars.Jar loaded = otherFirst ? new KafkaClientsJars.Jar(other.toString(), "3.9.1", "0ther")
                        : new KafkaClientsJars.Jar(realJar().toString(), realVersion(), jars.loaded().commitId());
                KafkaClientsJars.Jar second = otherFirst
                        ? new KafkaClientsJars.Jar(realJar().toString(), realVersion(), jars.others().get(0).commitId())
                        : new KafkaClientsJars.Jar(other.toString(), "3.9.1", "0ther");
                assertEquals(loaded, jars.loaded(), "the jar the class came from (the first on the path)");
                assertEquals(List.of(second), jars.others());
                String warning = jars.warning();
                assertNotNull(warning);
                assertTrue(warning.startsWith("2 kafka-clients on the class path: kmeta runs on " + loaded
                        + ", whose classes are loaded; also " + second + ". Keep one"), warning);
            }
        }
    }

    @Test
    void aShadedKafkaClientsWithoutMarkerSaysUnknownAndThisJvmHasOneKafkaClients() throws Exception {
        Path classes = dir.resolve("shaded");
        Path copy = classes.resolve(CLASS_FILE);
        Files.createDirectories(copy.getParent());
        try (InputStream in = KafkaException.class.getResourceAsStream("/" + CLASS_FILE)) {
            Files.copy(in, copy);
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, null)) {
            KafkaClientsJars jars = KafkaClientsJars.of(Class.forName(KafkaException.class.getName(), false, loader));
            assertEquals("unknown", jars.loaded().version(), "AppInfoParser is asked then");
            assertEquals(List.of(), jars.others());
        }
        // this JVM's test class path has kafka-server, kafka-raft... (each with a marker) and one kafka-clients
        assertNull(KafkaClientsCompat.twoJars());
        assertEquals(realVersion(), KafkaClientsCompat.version());
    }
}
