package dev.kmeta.producer;

import dev.kmeta.faketime.FakeTicker;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.sender.HostResolverHook;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;
import dev.kmeta.testkit.FakeBroker;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The KafkaProducer route's timing rules through {@link KmetaProducer}, on fake time: the producer's kmeta side
 * ({@code KmetaProducer.builder(props).ticker(fake)}) reads and parks on a {@link FakeTicker}, so a held or waiting
 * send stays parked until the test moves time, and the test sees the fake millisecond at which it ends. The network is
 * testkit's {@link FakeBroker} on loopback: node 1 is advertised under a name kmeta's DNS hook sends to 127.0.0.2,
 * where nothing listens (its leader's listener is unreachable while the bootstrap answers). Only what the sockets do
 * (an answer, a refused connection) is awaited in real time, with generous bounds; no timing threshold is on the
 * real clock. KafkaProducer's own clock stays the system's: its budget for kmeta's wait is {@code max.block.ms} minus
 * the real ms of its own work before the wait, hence the one slack below.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KmetaProducerFakeTimeTest {
    private static final String TOPIC = "orders";
    private static final long MAX_BLOCK_MS = 60_000;
    private static final String UNREACHABLE = "unreachable.test";
    /** The real ms KafkaProducer may spend before it hands its remaining budget to kmeta's wait (generous). */
    private static final long PRODUCER_OWN_WORK_SLACK_MS = 5_000;

    private final FakeTicker ticker = new FakeTicker();
    private FakeBroker broker;
    private Producer<String, String> producer;

    @AfterEach
    void close() {
        if (producer != null) {
            producer.close(Duration.ZERO);
        }
        if (broker != null) {
            broker.close();
        }
    }

    /** A broker of two nodes, node 1 unreachable for kmeta, and {@link #TOPIC} (one partition) led by {@code leader}. */
    private KafkaMetadata start(int leader) {
        return start(leader, MAX_BLOCK_MS);
    }

    private KafkaMetadata start(int leader, long maxBlockMs) {
        broker = FakeBroker.start(2).advertise(1, UNREACHABLE);
        broker.createTopic(TOPIC, 1);
        if (broker.leader(TOPIC, 0) != leader) {
            broker.moveLeaders(TOPIC);
        }
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", broker.bootstrapServers());
        props.put("max.block.ms", maxBlockMs);
        props.put("key.serializer", StringSerializer.class);
        props.put("value.serializer", StringSerializer.class);
        props.put("kmeta.metadata.jitter", 0);
        // KIP-714 telemetry has a timer of its own on the network thread (kafka-clients, as on a stock producer): off,
        // so that an idle network thread is idle (anIdleProducersNetworkThread...: one loop in 2 s with it on)
        props.put("enable.metrics.push", false);
        HostResolverHook dns = host -> UNREACHABLE.equals(host)
                ? new InetAddress[] {InetAddress.getByAddress(UNREACHABLE, new byte[] {127, 0, 0, 2})}
                : InetAddress.getAllByName(host);
        producer = KmetaProducer.builder(props).hostResolver(dns).ticker(ticker).build();
        return KmetaProducer.metadataOf(producer).orElseThrow();
    }

    /** Learns the topic and waits (real time: sockets) until kmeta saw {@code node}'s connection end as wanted. */
    private static void learnAndAwaitEvidence(KafkaMetadata kmeta, int node, Predicate<ConnectionEvidence.Record> is) {
        kmeta.awaitTopic(TOPIC, MetadataClient.ANY_PARTITION, kmeta.newSendDeadline()); // woken by the answer
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            ConnectionEvidence.Record r = kmeta.evidence().broker(node);
            return r != null && is.test(r);
        });
    }

    /** A send of one record to partition 0 on its own thread: its outcome (the record's metadata, or the error). */
    private final class Sending {
        final CompletableFuture<Object> outcome = new CompletableFuture<>();
        final Thread thread = new Thread(this::run, "sending");

        Sending() {
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            try {
                RecordMetadata m = producer.send(new ProducerRecord<>(TOPIC, 0, null, "v")).get(30, TimeUnit.SECONDS);
                outcome.complete(m);
            } catch (ExecutionException e) {
                outcome.complete(e.getCause());
            } catch (Throwable e) {
                outcome.complete(e);
            }
        }

        Object outcome() throws Exception {
            return outcome.get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * A send held for a leader that never accepted a connection fails at exactly max.block.ms of the instance's
     * clock (not one fake ms earlier, not a re-check later), with kmeta's diagnosis.
     */
    @Test
    void aHeldSendFailsAtExactlyMaxBlockMs() throws Exception {
        KafkaMetadata kmeta = start(1);
        learnAndAwaitEvidence(kmeta, 1, ConnectionEvidence.Record::failingNow);
        long sentAtNs = ticker.nanoTime();
        Sending send = new Sending();
        assertTrue(ticker.awaitParked(send.thread), "the send is held");

        ticker.advanceToNs(sentAtNs + TimeUnit.MILLISECONDS.toNanos(MAX_BLOCK_MS - 1));
        assertTrue(ticker.awaitParked(send.thread), "1 ms before max.block.ms the send is still held");
        assertEquals(TimeUnit.MILLISECONDS.toNanos(1), ticker.parkedForNs(send.thread), "its last look at max.block.ms");
        assertFalse(send.outcome.isDone());

        ticker.advanceMs(1);
        KafkaMetadataTimeoutException e = assertInstanceOf(KafkaMetadataTimeoutException.class, send.outcome());
        assertEquals(Diagnosis.Cause.ADVERTISED_LISTENER_UNREACHABLE, e.diagnosis().cause(), e.getMessage());
        assertTrue(e.getMessage().contains("not sendable after " + MAX_BLOCK_MS + " ms"), e.getMessage());
        RouteStats stats = KmetaProducer.routeStats(kmeta);
        assertEquals(1, stats.holdsTimedOut(), stats.toString());
        assertEquals(0, stats.holdsReleased(), stats.toString());
    }

    /**
     * A held send goes through once the partition's leader moves to a broker kmeta reaches - woken by kmeta's answer,
     * with the instance's clock never moved after the send began: the hold waits for events, it does not look again
     * after some ms (before: it looked every 20 ms of the instance's clock, so on fake time it stayed held).
     */
    @Test
    void aHeldSendIsReleasedByKmetasAnswerWithTheClockStill() throws Exception {
        KafkaMetadata kmeta = start(1);
        learnAndAwaitEvidence(kmeta, 1, ConnectionEvidence.Record::failingNow);
        ticker.advanceMs(1_000); // past any retry backoff of kmeta's sender, before the send: nothing moves after it
        long sentAtNs = ticker.nanoTime();
        Sending send = new Sending();
        assertTrue(ticker.awaitParked(send.thread), "the send is held");

        broker.moveLeaders(TOPIC); // to node 0, reachable
        kmeta.requestUpdate();
        RecordMetadata m = assertInstanceOf(RecordMetadata.class, send.outcome(), "the send went through");
        assertEquals(0, m.partition());
        assertEquals(sentAtNs, ticker.nanoTime(), "the instance's clock never moved after the send began");
        assertEquals(0, kmeta.fetch().partition(TOPIC, 0).leaderId());
        RouteStats stats = KmetaProducer.routeStats(kmeta);
        assertEquals(1, stats.sendsHeld(), stats.toString());
        assertEquals(1, stats.holdsReleased(), "released by the event: " + stats);
        assertEquals(0, stats.holdsTimedOut(), stats.toString());
    }

    /**
     * An idle producer's network thread sleeps through kmeta's new versions it does not wait for, as a stock one
     * sleeps through Metadata it did not ask for: no kmeta wake-up, no loop of its Sender (kafka-clients' own
     * {@code select-total}), and nothing of it parked on the instance's clock - no timer of kmeta's drives it.
     */
    @Test
    void anIdleProducersNetworkThreadSleepsThroughVersionsItDoesNotWaitFor() throws Exception {
        KafkaMetadata kmeta = start(0);
        producer.send(new ProducerRecord<>(TOPIC, 0, null, "v")).get(30, TimeUnit.SECONDS);
        double[] loops = {selectTotal()};
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(30)).until(() -> { // the ack's loops end
            double now = selectTotal();
            boolean still = now == loops[0];
            loops[0] = now;
            return still;
        });
        long wakeups = KmetaProducer.routeStats(kmeta).get(RouteStats.Counter.NETWORK_THREAD_WAKEUPS);
        for (int i = 0; i < 3; i++) {
            int before = kmeta.fetch().version();
            broker.bumpLeaderEpoch(TOPIC);
            ticker.advanceMs(1_000); // past kmeta's backoff
            kmeta.requestUpdate();
            await().atMost(Duration.ofSeconds(30)).until(() -> kmeta.fetch().version() > before);
        }
        assertEquals(loops[0], selectTotal(), "the Sender did not loop for kmeta's versions");
        assertEquals(wakeups, KmetaProducer.routeStats(kmeta).get(RouteStats.Counter.NETWORK_THREAD_WAKEUPS));
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("kafka-producer-network-thread")) {
                assertFalse(ticker.isParked(t), "the network thread never parks on the instance's clock");
            }
        }
    }

    private double selectTotal() {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("select-total") && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).findFirst().orElseThrow();
    }

    /** A send held for an unreachable leader ends at once when its thread is interrupted, its status set. */
    @Test
    void anInterruptDuringAHoldEndsTheSend() throws Exception {
        KafkaMetadata kmeta = start(1);
        learnAndAwaitEvidence(kmeta, 1, ConnectionEvidence.Record::failingNow);
        long before = ticker.nanoTime();
        boolean[] interruptedAfter = new boolean[1];
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "v"));
                thrown.complete(null);
            } catch (Throwable e) {
                interruptedAfter[0] = Thread.currentThread().isInterrupted();
                thrown.complete(e);
            }
        }, "sending");
        t.setDaemon(true);
        t.start();
        assertTrue(ticker.awaitParked(t), "the send is held");

        t.interrupt();
        Throwable e = thrown.get(30, TimeUnit.SECONDS); // no fake time moved: only the interrupt ends it
        assertInstanceOf(InterruptException.class, e, String.valueOf(e));
        assertTrue(interruptedAfter[0], "the thread's interrupt status is set (InterruptException's contract)");
        assertEquals(before, ticker.nanoTime());
    }

    /**
     * kmeta's timeout is kept for the send when the sending thread is late: its wait ends (on the instance's clock)
     * after KafkaProducer's own clock passed max.block.ms, and KafkaProducer would replace any timeout it sees then
     * with its own message ("not present in metadata after"); the kept one is thrown by the fetch() KafkaProducer makes
     * before it reads its clock, so kmeta's diagnosis still reaches the application. Lateness on KafkaProducer's
     * clock (the system's) is the one thing here that takes real time: 200 ms.
     */
    @Test
    void aTimeoutIsKeptForTheSendWhenTheSendingThreadIsLate() throws Exception {
        long maxBlockMs = 200;
        KafkaMetadata kmeta = start(0, maxBlockMs);
        kmeta.awaitTopic(TOPIC, MetadataClient.ANY_PARTITION, kmeta.newSendDeadline()); // the cluster is known
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        long sentAtRealNs = System.nanoTime();
        Thread t = sendToMissingTopic(failed);
        assertTrue(ticker.awaitParked(t), "the send waits for its topic");
        await().atMost(Duration.ofSeconds(30)).until(() -> { // the broker's answer (sockets): no such topic
            Diagnosis d = kmeta.diagnose("missing", 0);
            return d != null && d.cause() == Diagnosis.Cause.TOPIC_NOT_FOUND;
        });
        // The thread is late: KafkaProducer's clock passes max.block.ms while kmeta's wait is still parked.
        await().pollDelay(Duration.ofMillis(maxBlockMs)).atMost(Duration.ofSeconds(30))
                .until(() -> System.nanoTime() - sentAtRealNs > TimeUnit.MILLISECONDS.toNanos(maxBlockMs));
        assertTrue(ticker.isParked(t), "kmeta's wait ends on the instance's clock only");

        ticker.advanceMs(maxBlockMs);
        Throwable e = failed.get(30, TimeUnit.SECONDS);
        KafkaMetadataTimeoutException timeout = assertInstanceOf(KafkaMetadataTimeoutException.class, e,
                "kmeta's kept timeout, not KafkaProducer's own message: " + e);
        assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, timeout.diagnosis().cause(), timeout.getMessage());
    }

    /**
     * A send waiting for a topic that does not exist gets kmeta's diagnosed timeout {@code give.up.early.ms} before
     * max.block.ms, so that the diagnosis reaches the application instead of KafkaProducer's own message.
     */
    @Test
    void aMetadataWaitGivesUpTheMarginBeforeMaxBlockMs() throws Exception {
        KafkaMetadata kmeta = start(0);
        kmeta.awaitTopic(TOPIC, MetadataClient.ANY_PARTITION, kmeta.newSendDeadline()); // the cluster is known
        long giveUpMs = KmetaProducer.DEFAULT_GIVE_UP_EARLY_MS;
        long sentAtNs = ticker.nanoTime();
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        Thread t = sendToMissingTopic(failed);
        assertTrue(ticker.awaitParked(t), "the send waits for its topic");
        await().atMost(Duration.ofSeconds(30)).until(() -> { // the broker's answer (sockets): no such topic
            Diagnosis d = kmeta.diagnose("missing", 0);
            return d != null && d.cause() == Diagnosis.Cause.TOPIC_NOT_FOUND;
        });

        ticker.advanceToNs(sentAtNs + TimeUnit.MILLISECONDS.toNanos(MAX_BLOCK_MS - giveUpMs - PRODUCER_OWN_WORK_SLACK_MS));
        assertTrue(ticker.awaitParked(t), "still waiting well before the margin");
        ticker.advanceToNs(sentAtNs + TimeUnit.MILLISECONDS.toNanos(MAX_BLOCK_MS - giveUpMs));
        Throwable e = failed.get(30, TimeUnit.SECONDS);
        KafkaMetadataTimeoutException timeout = assertInstanceOf(KafkaMetadataTimeoutException.class, e,
                "kmeta's diagnosed timeout, not KafkaProducer's: " + e);
        assertNotNull(timeout.diagnosis());
        assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, timeout.diagnosis().cause(), timeout.getMessage());
    }

    /** Sends one record to the missing topic on a new daemon thread; {@code failed} gets its failure (null: acked). */
    private Thread sendToMissingTopic(CompletableFuture<Throwable> failed) {
        Thread t = new Thread(() -> {
            try {
                producer.send(new ProducerRecord<>("missing", 0, null, "v")).get(30, TimeUnit.SECONDS);
                failed.complete(null);
            } catch (ExecutionException e) {
                failed.complete(e.getCause());
            } catch (Throwable e) {
                failed.complete(e);
            }
        }, "sending");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
