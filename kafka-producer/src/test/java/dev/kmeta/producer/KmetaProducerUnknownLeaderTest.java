package dev.kmeta.producer;

import dev.kmeta.producer.internal.ProducerBridge;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.FakeBroker;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.kmeta.producer.ProducerIt.bridge;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A record queued for a partition without a leader: the producer's Sender asks for a metadata update on every loop
 * (kafka-clients asks its brokers for every topic of the producer then), and kmeta asks for that topic alone. On
 * testkit's {@link FakeBroker} (loopback), whose Metadata answers are counted in partitions: while the topic has no
 * leader, every Metadata answer lists its partitions only - none of the 2,000 partitions of the producer's other
 * topics - and the requests stay within kmeta's backoff; given its leader back, the record is acknowledged.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class KmetaProducerUnknownLeaderTest {
    private static final String DARK = "dark";
    /** Issue 39: a topic whose partition loses its leader while its replica stays alive (an election). */
    private static final String ELECTING = "electing";
    private static final int DARK_PARTITIONS = 2;
    private static final int OTHER_TOPICS = 40;
    private static final int OTHER_PARTITIONS = 50;
    private static final long RETRY_BACKOFF_MS = 100;
    private static FakeBroker broker;

    @BeforeAll
    static void start() {
        broker = FakeBroker.start(1);
        broker.createTopic(DARK, DARK_PARTITIONS);
        broker.createTopic(ELECTING, 1);
        for (int t = 0; t < OTHER_TOPICS; t++) {
            broker.createTopic(other(t), OTHER_PARTITIONS);
        }
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static String other(int t) {
        return String.format("other-%02d", t);
    }

    @Test
    void aRecordForALeaderlessPartitionRefreshesThatTopicOnly() throws Exception {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", broker.bootstrapServers());
        props.put("key.serializer", StringSerializer.class);
        props.put("value.serializer", StringSerializer.class);
        props.put("retry.backoff.ms", RETRY_BACKOFF_MS);
        props.put("metadata.max.age.ms", 600_000); // no periodic full refresh inside the test
        props.put("max.block.ms", 30_000);
        props.put("delivery.timeout.ms", 60_000);
        Producer<String, String> producer = KmetaProducer.builder(props).build();
        try {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int t = 0; t < OTHER_TOPICS; t++) {
                acks.add(producer.send(new ProducerRecord<>(other(t), 0, null, "v")));
            }
            for (Future<RecordMetadata> f : acks) {
                f.get(30, TimeUnit.SECONDS); // the producer's topics: 2,000 partitions in every full refresh
            }
            producer.send(new ProducerRecord<>(DARK, 0, null, "v")).get(30, TimeUnit.SECONDS);
            ProducerBridge bridge = bridge(producer);

            broker.leaderless(DARK, true); // as a topic just created, or whose replicas went offline
            KafkaMetadata kmeta = bridge.metadata();
            kmeta.invalidate(DARK, 1);
            await().atMost(Duration.ofSeconds(30)).until(() -> !kmeta.fetch().topic(DARK).partition(1).hasLeader());
            long requestsBefore = broker.requestCount(ApiKeys.METADATA);
            long answeredBefore = broker.partitionsAnswered();
            long targetedBefore = bridge.targetedUpdates();
            long startNs = System.nanoTime();
            // the record waits in the accumulator for a leader, and the Sender asks for an update on every loop
            Future<RecordMetadata> dark = producer.send(new ProducerRecord<>(DARK, 1, null, "v"));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> broker.requestCount(ApiKeys.METADATA) >= requestsBefore + 3);
            long answered = broker.partitionsAnswered() - answeredBefore; // first: each answer's request counted before
            long requests = broker.requestCount(ApiKeys.METADATA) - requestsBefore;
            double seconds = (System.nanoTime() - startNs) / 1e9;
            assertFalse(dark.isDone(), "no leader: the record waits");
            assertTrue(answered <= requests * DARK_PARTITIONS, requests + " Metadata answers listed " + answered
                    + " partitions: a full refresh (" + (OTHER_TOPICS * OTHER_PARTITIONS + DARK_PARTITIONS)
                    + " partitions) was asked for a topic without a leader");
            assertTrue(bridge.targetedUpdates() > targetedBefore, "the Sender's updates were asked for the topic alone");
            // kmeta's backoff bounds the requests however often the Sender asks (every 10 ms here)
            long bound = 2 + (long) Math.ceil(seconds * 1000 / RETRY_BACKOFF_MS);
            assertTrue(requests <= bound, requests + " Metadata requests in " + seconds + " s (bound " + bound + ")");

            broker.leaderless(DARK, false);
            assertEquals(1, dark.get(30, TimeUnit.SECONDS).partition());
        } finally {
            producer.close(Duration.ZERO); // a failed assertion leaves a record queued: do not wait for it
        }
    }

    /**
     * Issue 39: with {@code kmeta.producer.leaderless.partition=fail} a partition without a leader whose replica is
     * not reported offline (FakeBroker's leaderless answer: leader -1, no offline replica, as mid-election) is held as
     * kafka-clients holds it - past max.block.ms - and its record is delivered when the leader returns.
     */
    @Test
    void inFailModeAPartitionMidElectionIsHeldAndItsRecordDeliveredWhenTheLeaderReturns() throws Exception {
        long maxBlockMs = 500;
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", broker.bootstrapServers());
        props.put("key.serializer", StringSerializer.class);
        props.put("value.serializer", StringSerializer.class);
        props.put("max.block.ms", maxBlockMs);
        props.put(KmetaProducer.LEADERLESS_PARTITION, "fail");
        Producer<String, String> producer = KmetaProducer.builder(props).build();
        try {
            producer.send(new ProducerRecord<>(ELECTING, 0, null, "v")).get(30, TimeUnit.SECONDS);
            KafkaMetadata kmeta = bridge(producer).metadata();
            broker.leaderless(ELECTING, true);
            kmeta.invalidate(ELECTING, 0);
            await().atMost(Duration.ofSeconds(30)).until(() -> !kmeta.fetch().topic(ELECTING).partition(0).hasLeader());
            Future<RecordMetadata> held = producer.send(new ProducerRecord<>(ELECTING, 0, null, "v"));
            await().during(Duration.ofMillis(maxBlockMs * 2)).atMost(Duration.ofSeconds(10))
                    .until(() -> !held.isDone()); // held past max.block.ms: not failed
            assertTrue(kmeta.leaderlessPartitions().containsKey(ELECTING + "-0"), "listed while held");
            broker.leaderless(ELECTING, false);
            assertEquals(0, held.get(30, TimeUnit.SECONDS).partition());
        } finally {
            producer.close(Duration.ZERO);
        }
    }
}
