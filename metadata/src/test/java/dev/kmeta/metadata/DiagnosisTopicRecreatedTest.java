package dev.kmeta.metadata;

import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Diagnosis#topicRecreated}: what a record of a deleted and re-created topic fails with (issue 27). */
class DiagnosisTopicRecreatedTest {
    private static final UUID OLD = new UUID(0x0123456789abcdefL, 0xfedcba9876543210L);
    private static final UUID NEW = new UUID(1L, 2L);

    @Test
    void namesBothIncarnationsAsKafkasToolsPrintTheirIds() {
        Diagnosis d = Diagnosis.topicRecreated("orders", 5, OLD, NEW, 6, 3);
        assertEquals(Diagnosis.Cause.TOPIC_RECREATED, d.cause());
        assertEquals("orders", d.topic());
        assertEquals(5, d.partition());
        assertEquals(3, d.partitionCount(), "the new count");
        assertEquals("the topic was deleted and re-created: topic id ASNFZ4mrze_-3LqYdlQyEA -> AAAAAAAAAAEAAAAAAAAAAg, "
                + "partitions 6 -> 3", d.seen());
        assertTrue(d.fix().contains("below 3"), d.fix());
        assertTrue(d.message().startsWith("TOPIC_RECREATED: cannot deliver a record for partition 5 of topic orders: "),
                d.message());
        assertEquals(1, d.evidence().size());
        assertTrue(d.evidence().get(0).contains("6 partitions") && d.evidence().get(0).contains("3 partitions"));
    }

    @Test
    void aPartitionTheNewTopicHasIsToldToSendAgain() {
        Diagnosis d = Diagnosis.topicRecreated("orders", 1, OLD, NEW, 6, 3);
        assertTrue(d.fix().startsWith("send the record again"), d.fix());
    }

    @Test
    void foundInTheChainLikeEveryDiagnosis() {
        Diagnosis d = Diagnosis.topicRecreated("orders", -1, OLD, NEW, 3, 6);
        assertEquals(d, Diagnosis.from(new RuntimeException(MetadataTimeoutException.of(d))).orElseThrow());
    }
}
