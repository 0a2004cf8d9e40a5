package dev.kmeta.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.internal.MergePath;
import dev.kmeta.sender.internal.ResponseTranslator;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.MetadataResponseData;
import org.junit.jupiter.api.Test;

/** The side-by-side benchmarks feed both implementations the same answer; they must then agree. */
class SideBySideSetupTest {
    private static final int[] SAMPLE = {0, 1, 499, 998, 999};

    @Test
    void sendPathSetupAgrees() {
        for (String style : new String[] {"hashed", "numbered"}) {
            String[] names = ApplyDelta.topicNames(style, SendPathLookup.TOPICS);
            MetadataResponseData data = Wire.data(names, 0, names.length, 0);
            ProducerMetadata kafka = Wire.producerMetadata(names, data);
            Cluster kmeta = Wire.manager(names, data).fetch();
            assertAgree(names, kafka.fetch(), kmeta, 0);
        }
    }

    @Test
    void smallChangeAgrees() {
        String[] names = ApplyDelta.topicNames("numbered", 1_000);
        MetadataResponseData data = Wire.data(names, 0, names.length, 0);
        ProducerMetadata kafka = Wire.producerMetadata(names, data);
        MergePath merge = new MergePath();
        Cluster kmeta = merge.apply(Cluster.empty(), ResponseTranslator.translate(Wire.response(data), Cluster.empty()));
        int t = 499;
        MetadataResponseData change = Wire.data(names, t, t + 1, 1);
        kafka.updateWithCurrentRequestVersion(Wire.response(change), true, System.currentTimeMillis());
        kmeta = merge.apply(kmeta, ResponseTranslator.translate(Wire.response(Wire.data(names, t, t + 1, 1)), kmeta));
        assertAgree(names, kafka.fetch(), kmeta, -1);
        assertEquals(Wire.leader(t, 0, 1), kmeta.leader(names[t], 0).id());
        assertEquals(Wire.leader(0, 0, 0), kmeta.leader(names[0], 0).id());
    }

    @Test
    void sendPathUnderUpdatesAppliesTheSameAnswersToBoth() throws InterruptedException {
        for (String updates : new String[] {"fresh-moving", "pooled-steady"}) {
            SendPathUnderUpdates kafka = underUpdates(Wire.IMPL_KAFKA, updates);
            SendPathUnderUpdates kmeta = underUpdates(Wire.IMPL_KMETA, updates);
            assertAgree(kafka.topicNames, kafka.kafka.fetch(), kmeta.kmeta.fetch(), 0);
            for (int round = 1; round <= 2; round++) {
                kafka.update();
                kmeta.update();
                int epoch = updates.equals("fresh-moving") ? round : 0;
                assertAgree(kafka.topicNames, kafka.kafka.fetch(), kmeta.kmeta.fetch(), epoch);
            }
            assertEquals(kafka.queryTopics[0], kmeta.queryTopics[0], "both look up the same pairs");
            int leader = Wire.leader(java.util.Arrays.asList(kmeta.topicNames).indexOf(kmeta.queryTopics[0]),
                    kmeta.queryPartitions[0], updates.equals("fresh-moving") ? 2 : 0);
            assertEquals(leader, kmeta.lookup());
            assertEquals(leader + ApplyDelta.PARTITIONS_PER_TOPIC, kafka.lookup(), "kafka-clients adds the count");
        }
    }

    private static SendPathUnderUpdates underUpdates(String impl, String updates) {
        SendPathUnderUpdates b = new SendPathUnderUpdates();
        b.impl = impl;
        b.names = "numbered";
        b.updates = updates;
        b.setUp();
        return b;
    }

    @Test
    void retainedHeapMeasuresEqualStates() throws Exception {
        String[] names = ApplyDelta.topicNames("hashed", 1_000);
        java.util.Map<String, java.util.function.Supplier<Object>> states = RetainedHeap.states(names);
        ProducerMetadata kafka = (ProducerMetadata) states.get(Wire.IMPL_KAFKA).get();
        Cluster kmeta = ((dev.kmeta.metadata.internal.MetadataManager) states.get(Wire.IMPL_KMETA).get()).fetch();
        Cluster snapshot = (Cluster) states.get("kmeta-snapshot").get();
        assertAgree(names, kafka.fetch(), kmeta, 0);
        assertAgree(names, kafka.fetch(), snapshot, 0);
        java.util.Map<String, long[]> histogram = RetainedHeap.histogram();
        assertTrue(histogram.get(PartitionMetadata.class.getName())[0] >= 2 * 100_000L,
                "the class histogram sees the two kmeta states' partitions");
    }

    @Test
    void targetedWakeupGivesBothTheSameRequestAndAnswer() throws Exception {
        String[] names = ApplyDelta.topicNames("hashed", 3);
        TargetedWakeup.KafkaSide kafka = (TargetedWakeup.KafkaSide) TargetedWakeup.side(Wire.IMPL_KAFKA, 1);
        TargetedWakeup.KmetaSide kmeta = (TargetedWakeup.KmetaSide) TargetedWakeup.side(Wire.IMPL_KMETA, 1);
        try (kafka; kmeta) {
            for (TargetedWakeup.Side side : new TargetedWakeup.Side[] {kafka, kmeta}) {
                java.util.concurrent.atomic.AtomicReferenceArray<Object> outcomes =
                        new java.util.concurrent.atomic.AtomicReferenceArray<>(names.length);
                Thread[] waiters = new Thread[names.length];
                for (int i = 0; i < names.length; i++) {
                    int t = i;
                    waiters[i] = new Thread(() -> {
                        try {
                            side.await(names[t]);
                            outcomes.set(t, "returned");
                        } catch (Exception e) {
                            outcomes.set(t, e);
                        }
                    }, "waiter-" + i);
                    waiters[i].setDaemon(true);
                    waiters[i].start();
                }
                TargetedWakeup.awaitParked(waiters, -1, 30_000);
                java.util.Collection<String> asked = side.nextRequest();
                assertEquals(java.util.Set.of(names), new java.util.HashSet<>(asked), side.getClass().getName());
                java.util.List<String> others = new java.util.ArrayList<>(asked);
                others.remove(names[1]);
                side.answer(Wire.withUnknown(Wire.data(names, 1, 2, 0), others));
                waiters[1].join(30_000);
                assertEquals("returned", outcomes.get(1), side.getClass().getName());
                TargetedWakeup.awaitParked(waiters, 1, 30_000);
                assertEquals(null, outcomes.get(0), "still waiting");
                assertEquals(null, outcomes.get(2), "still waiting");
            }
            org.apache.kafka.common.Cluster k = kafka.m.fetch();
            Cluster c = kmeta.m.fetch();
            assertEquals(java.util.Set.of(names[1]), k.topics());
            assertEquals(java.util.Set.of(names[1]), c.topicNames());
            for (int p = 0; p < ApplyDelta.PARTITIONS_PER_TOPIC; p++) {
                assertEquals(k.leaderFor(new TopicPartition(names[1], p)).id(), c.leader(names[1], p).id());
                assertEquals(Wire.leader(1, p, 0), c.leader(names[1], p).id());
            }
        }
    }

    /**
     * FullAnswer: after the same answers, both hold every topic with the same leaders - the topics each answer
     * changed included, on every pooled answer in turn - and kmeta applied each answer through the driven instance.
     */
    @Test
    void fullAnswerAppliesTheSameAnswersToBoth() {
        FullAnswer kafka = fullAnswer(Wire.IMPL_KAFKA);
        FullAnswer kmeta = fullAnswer(Wire.IMPL_KMETA);
        try {
            int version = kmeta.kmeta.metadata.fetch().version();
            for (int op = 0; op < 2 * kmeta.pool + 1; op++) {
                kafka.answer();
                kmeta.answer();
                int t = (int) ((long) op * ApplySmallChange.STRIDE % kmeta.topics);
                String name = kmeta.topicNames[t];
                Cluster c = kmeta.kmeta.metadata.fetch();
                for (int p = 0; p < ApplyDelta.PARTITIONS_PER_TOPIC; p++) {
                    int expected = Wire.leader(t, p, kmeta.epochs[t]);
                    assertEquals(expected, c.leader(name, p).id(), name + "-" + p + " after op " + op);
                    assertEquals(expected, kafka.kafka.fetch().leaderFor(new TopicPartition(name, p)).id());
                }
                assertEquals(kmeta.epochs[t], c.partition(name, 0).leaderEpoch());
            }
            assertEquals(version + 2 * kmeta.pool + 1, kmeta.kmeta.metadata.fetch().version(), "one per answer");
            assertAgree(kmeta.topicNames, kafka.kafka.fetch(), kmeta.kmeta.metadata.fetch(), -1);
            assertTrue(kmeta.kmeta.client.metadataRequestsSent() >= 2 * kmeta.pool + 2,
                    "every answer asked for by a request");
        } finally {
            kmeta.tearDown();
        }
    }

    private static FullAnswer fullAnswer(String impl) {
        FullAnswer b = new FullAnswer();
        b.partitions = 100_000;
        b.impl = impl;
        b.names = "numbered";
        b.change = "one";
        b.layout = "promoted"; // no full GC in a test
        b.pool = 2;
        b.setUp();
        return b;
    }

    /** SendPathPublicApi: every way finds the same leader for the same sends. */
    @Test
    void sendPathPublicApiFindsTheSameLeaders() {
        long kafkaSum = -1;
        long kmetaSum = -1;
        for (String impl : new String[] {Wire.IMPL_KAFKA, Wire.IMPL_KMETA, SendPathPublicApi.IMPL_KMETA_FETCH}) {
            SendPathPublicApi b = new SendPathPublicApi();
            b.impl = impl;
            b.names = "numbered";
            b.setUp();
            try {
                SendPathPublicApi.Queries q = new SendPathPublicApi.Queries();
                q.setUp(b);
                long expected = 0;
                for (int i = 0; i < SendPathPublicApi.QUERIES; i++) {
                    int t = java.util.Arrays.asList(b.topicNames).indexOf(q.topics[i]);
                    expected += Wire.leader(t, q.partitions[i], 0);
                }
                long sum = b.sends(q);
                if (Wire.IMPL_KAFKA.equals(impl)) {
                    kafkaSum = sum - (long) SendPathPublicApi.QUERIES * ApplyDelta.PARTITIONS_PER_TOPIC;
                    assertEquals(expected, kafkaSum, "kafka-clients adds the count");
                } else {
                    assertEquals(expected, sum, impl);
                    kmetaSum = sum;
                }
            } finally {
                b.tearDown();
            }
        }
        assertEquals(kafkaSum, kmetaSum);
    }

    /** Same partition count and leader per partition for the sampled topics ({@code epoch} >= 0: also as built). */
    private static void assertAgree(String[] names, org.apache.kafka.common.Cluster kafka, Cluster kmeta, int epoch) {
        assertEquals(names.length, kafka.topics().size());
        assertEquals(names.length, kmeta.topicNames().size());
        for (int t : SAMPLE) {
            String name = names[t];
            TopicMetadata topic = kmeta.topic(name);
            assertNotNull(topic, name);
            assertEquals(kafka.partitionCountForTopic(name).intValue(), topic.partitionCount(), name);
            for (int p = 0; p < topic.partitionCount(); p++) {
                int kafkaLeader = kafka.leaderFor(new TopicPartition(name, p)).id();
                assertEquals(kafkaLeader, kmeta.leader(name, p).id(), name + "-" + p);
                if (epoch >= 0) {
                    assertEquals(Wire.leader(t, p, epoch), kafkaLeader, name + "-" + p);
                }
            }
        }
    }
}
