package dev.kmeta.sender;

import dev.kmeta.testkit.TestClients;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.sender.internal.KafkaClientsCompat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The kafka-clients this test JVM runs is the one the build meant: {@code kafka.version} in the default test run,
 * {@code kafka.clients.compat.version} (4.0) in the {@code kafka-clients-compat} run of the same tests (sender/pom.xml),
 * so a green compat run is a run on that version, not on 4.4 again.
 */
@Tag("kafka-clients-compat")
class KafkaClientsOnClassPathTest {
    @Test
    void theTestJvmRunsTheKafkaClientsTheBuildChose() {
        String expected = System.getProperty("kmeta.test.kafkaClientsVersion");
        assertEquals(expected, KafkaClientsCompat.version(), "kafka-clients at " + KafkaClientsCompat.location());
        assertTrue(KafkaClientsCompat.location().endsWith("kafka-clients-" + expected + ".jar"),
                KafkaClientsCompat.location());
        KafkaClientsCompat.requireSupported();
        if (System.getProperty("kmeta.testkit.kafka.distribution") != null) {
            // the compat run: no Kafka server classes here, so every broker runs in a child JVM of its own
            assertThrows(ClassNotFoundException.class, () -> Class.forName("kafka.server.KafkaRaftServer"));
        }
        TestClients.report("%s", "sender tests on kafka-clients " + KafkaClientsCompat.version() + " ("
                + KafkaClientsCompat.location() + ")");
    }
}
