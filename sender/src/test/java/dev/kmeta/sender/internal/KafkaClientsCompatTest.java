package dev.kmeta.sender.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The version rules of {@link KafkaClientsCompat} and what it finds in this JVM's kafka-clients. Other versions run
 * in compat-tests (class loaders per version) and in sender's kafka-clients-compat test run.
 */
@Tag("kafka-clients-compat")
class KafkaClientsCompatTest {
    @Test
    void versionsCompareByMajorAndMinorOnly() {
        String oldest = KafkaClientsCompat.OLDEST;
        String newest = KafkaClientsCompat.NEWEST;
        assertTrue(KafkaClientsCompat.compareMinor("3.9.2", oldest) < 0, "3.9 is refused");
        assertEquals(0, KafkaClientsCompat.compareMinor(oldest + ".0", oldest));
        assertEquals(0, KafkaClientsCompat.compareMinor(oldest + ".2-SNAPSHOT", oldest));
        assertEquals(0, KafkaClientsCompat.compareMinor(newest + ".7", newest), "any patch of the newest is tested");
        String next = newest.replaceAll("\\..*", "") + "." + (Integer.parseInt(newest.replaceAll(".*\\.", "")) + 1);
        assertTrue(KafkaClientsCompat.compareMinor(next + ".0", newest) > 0, "the next minor gets a WARN and a try");
        assertTrue(KafkaClientsCompat.compareMinor("5.0.0", newest) > 0);
        assertTrue(KafkaClientsCompat.compareMinor("10.0.0", oldest) > 0, "numbers, not text");
        assertNull(KafkaClientsCompat.compareMinor("unknown", oldest), "unknown: a WARN and a try");
        assertNull(KafkaClientsCompat.compareMinor("4", oldest));
    }

    @Test
    void onThisJvmsKafkaClientsEverythingIsFound() {
        KafkaClientsCompat.requireSupported();
        assertTrue(KafkaClientsCompat.location().contains("kafka-clients"), KafkaClientsCompat.location());
        assertTrue(KafkaClientsCompat.version().startsWith("4."), KafkaClientsCompat.version());
        assertTrue(!"unknown".equals(KafkaClientsCompat.commitId()));
    }

    @Test
    void theClientsIdentityIsSentFrom44OnlyAndOlderVersionsStillLoadKmetasUpdater() {
        // KIP-1242: NetworkClient asks MetadataUpdater.clusterId(), new in 4.4. The sender's kafka-clients-compat run
        // (4.0.0) sees false here, and its integration tests run kmeta, whose NodeProvider defines clusterId(), on it.
        boolean from44 = KafkaClientsCompat.compareMinor(KafkaClientsCompat.version(), "4.4") >= 0;
        assertEquals(from44, KafkaClientsCompat.sendsClusterIdentity(), KafkaClientsCompat.version());
        assertEquals(System.getProperty("kmeta.test.kafkaClientsVersion", KafkaClientsCompat.version()),
                KafkaClientsCompat.version(), "the kafka-clients this run is about");
    }

    @Test
    void producePiecesWorkOnThisVersion() throws Exception {
        Uuid id = Uuid.randomUuid();
        TopicProduceData topic = KafkaClientsCompat.setTopicId(new TopicProduceData().setName("t"), id);
        assertEquals(KafkaClientsCompat.produceByTopicId() ? id : Uuid.ZERO_UUID, KafkaClientsCompat.topicId(topic));
        PartitionProduceData partition = KafkaClientsCompat.setRecords(new PartitionProduceData().setIndex(0),
                new long[] {1L, 2L}, new byte[][] {null, "k".getBytes()}, new byte[][] {"a".getBytes(), null});
        // records() returns BaseRecords, whose package depends on the version: called by name, as the compat does
        Object records = PartitionProduceData.class.getMethod("records").invoke(partition);
        assertTrue((int) records.getClass().getMethod("sizeInBytes").invoke(records) > 0, "a batch of two records");
    }
}
