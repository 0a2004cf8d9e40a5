package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading a distribution's class path file; starting nodes from one is tested in compat-tests and sender. */
class KafkaDistributionTest {
    @TempDir
    Path dir;

    @Test
    void theVersionComesFromTheKafkaJarAndTheTestkitGoesLast() throws Exception {
        Path kafka = Files.createFile(dir.resolve("kafka_2.13-3.9.2.jar"));
        Path clients = Files.createFile(dir.resolve("kafka-clients-3.9.2.jar"));
        Path file = Files.writeString(dir.resolve("kafka.classpath"), kafka + File.pathSeparator + clients + "\n");
        KafkaDistribution d = KafkaDistribution.fromClasspathFile(file);
        assertEquals("3.9.2", d.version());
        assertTrue(d.atLeast(3, 7) && d.atLeast(3, 9) && !d.atLeast(4, 0));
        String[] entries = d.classpath().split(File.pathSeparator);
        assertEquals(kafka.toString(), entries[0]);
        assertEquals(3, entries.length, "the two jars, then the testkit's classes for ChildBroker");
    }

    @Test
    void aMissingFileOrJarOrPropertySaysWhatToBuild() throws Exception {
        IllegalStateException noFile = assertThrows(IllegalStateException.class,
                () -> KafkaDistribution.fromClasspathFile(dir.resolve("absent.classpath")));
        assertTrue(noFile.getMessage().contains("build the brokers/ module"), noFile.getMessage());
        Path file = Files.writeString(dir.resolve("gone.classpath"), dir.resolve("kafka_2.13-3.7.2.jar").toString());
        assertTrue(assertThrows(IllegalStateException.class, () -> KafkaDistribution.fromClasspathFile(file))
                .getMessage().contains("missing jar"));
        IllegalStateException noProperty = assertThrows(IllegalStateException.class,
                () -> KafkaDistribution.named("0.8"));
        assertTrue(noProperty.getMessage().contains("kmeta.testkit.kafka.0.8.classpath"), noProperty.getMessage());
        Path noKafka = Files.writeString(dir.resolve("nokafka.classpath"),
                Files.createFile(dir.resolve("other.jar")).toString());
        assertFalse(assertThrows(IllegalStateException.class, () -> KafkaDistribution.fromClasspathFile(noKafka))
                .getMessage().isEmpty());
    }
}
