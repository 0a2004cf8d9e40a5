package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Brokers in child JVMs can be killed hard; the controller fences the dead one and leadership moves. */
class ChildProcessClusterTest {

    @RegisterExtension
    static final KafkaClusterExtension KAFKA =
            KafkaClusterExtension.of(KafkaCluster.builder().brokers(2).childProcesses(true));

    @Test
    void aKilledLeaderIsReplacedAndTheBrokerComesBack() throws Exception {
        KafkaCluster kafka = KAFKA.cluster();
        kafka.createTopic("crash", 1, 2);
        int leader = kafka.leader("crash", 0);

        kafka.killBroker(leader);
        assertFalse(kafka.runningBrokerIds().contains(leader));
        Awaitility.await("a new leader after the session timeout").atMost(Duration.ofSeconds(15))
                .until(() -> kafka.leader("crash", 0), now -> now >= 0 && now != leader);

        kafka.startBroker(leader);
        assertEquals(List.of(0, 1), kafka.runningBrokerIds());
        try (KafkaProducer<String, String> producer = Clients.producer(kafka.bootstrapServers(), 10_000)) {
            producer.send(new ProducerRecord<>("crash", "k", "after the crash")).get(10, TimeUnit.SECONDS);
        }
    }
}
