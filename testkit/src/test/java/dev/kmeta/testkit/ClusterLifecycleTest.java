package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Start and close leave nothing behind; misuse fails clearly. */
class ClusterLifecycleTest {

    @Test
    void closeStopsEveryKafkaThreadAndDeletesTheStorage() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        Path storage;
        try (KafkaCluster kafka = KafkaCluster.builder().brokers(1).build().start()) {
            storage = kafka.storageDirectory();
            assertTrue(Files.isDirectory(storage));
            assertEquals("target", storage.getParent().getFileName().toString());
            assertTrue(storage.getFileName().toString().startsWith("kafka-"));
        }
        assertFalse(Files.exists(storage), "storage deleted");
        Awaitility.await("no new non-daemon thread").atMost(Duration.ofSeconds(10)).pollInSameThread()
                .until(() -> newNonDaemonThreads(before), Set::isEmpty);
    }

    @Test
    void misuseFailsClearly() {
        KafkaCluster kafka = KafkaCluster.builder().build();
        assertThrows(IllegalStateException.class, kafka::admin);
        assertThrows(IllegalArgumentException.class, () -> KafkaCluster.builder().brokers(0));
        assertThrows(IllegalArgumentException.class, () -> KafkaCluster.builder().advertisedPort(5, 1).build());
        kafka.close();
        assertThrows(IllegalStateException.class, kafka::start);
    }

    private static Set<String> newNonDaemonThreads(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t) && t.isAlive() && !t.isDaemon())
                .map(Thread::getName)
                .collect(Collectors.toSet());
    }
}
