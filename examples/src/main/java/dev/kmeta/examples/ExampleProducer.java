package dev.kmeta.examples;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.sender.KafkaMetadata;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A small but real Kafka producer that embeds kmeta as its metadata source: the documented integration example
 * (docs/embedding.md). It owns one kafka-clients {@code NetworkClient} and one network thread; kmeta runs in driven
 * mode inside that thread's {@code poll}, so metadata requests and produce requests share the connections.
 *
 * <pre>{@code
 * try (ExampleProducer producer = ExampleProducer.create(Map.of("bootstrap.servers", "localhost:9092"))) {
 *     Ack ack = producer.send("orders", 3, key, value).get();
 * }
 * }</pre>
 *
 * <p>What it shows: one {@link Deadline} per {@link #send} ({@code max.block.ms}) for the metadata wait and then the
 * buffer wait; records sent to the leader in kmeta's snapshot, acks=all by default; KIP-951 leader hints from produce
 * answers fed back to kmeta; invalidation when a leader is doubtful; retries until {@code delivery.timeout.ms}. Records
 * of a partition are written in send order (one batch per partition in flight). What it leaves out: idempotence
 * (a retry after a lost answer may write a record twice), compression, linger, transactions, a partitioner.
 *
 * <p>Thread-safe: {@link #send} may be called from any number of threads; {@link #close()} is idempotent.
 */
public final class ExampleProducer implements AutoCloseable {
    private static final long CLOSE_GRACE_MS = 5_000;

    private final KafkaMetadata metadata;
    private final NetworkClient client;
    private final Metrics metrics;
    private final ProducerSettings settings;
    private final long maxBlockMs;
    private final Semaphore buffer;
    private final ProducerStats stats = new ProducerStats();
    private final NetworkLoop loop;
    private final Thread networkThread;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ExampleProducer(KafkaMetadata metadata, NetworkClient client, Metrics metrics, ProducerSettings settings) {
        this.metadata = metadata;
        this.client = client;
        this.metrics = metrics;
        this.settings = settings;
        this.maxBlockMs = metadata.config().maxBlockMs();
        this.buffer = new Semaphore(settings.bufferRecords());
        this.loop = new NetworkLoop(client, metadata, settings, buffer, stats);
        this.networkThread = new Thread(loop, "example-producer-network-thread | " + metadata.config().clientId());
        this.networkThread.setDaemon(true);
    }

    /**
     * A producer for these properties: Kafka's keys ({@code bootstrap.servers}, {@code client.id},
     * {@code max.block.ms}, {@code delivery.timeout.ms}, {@code request.timeout.ms}, {@code acks} (default all),
     * {@code batch.size}, {@code retry.backoff.ms}, {@code security.protocol}, {@code ssl.*}, {@code sasl.*}, ...)
     * plus {@code example.buffer.records} (records accepted and not yet acked, default 10000).
     *
     * @throws IllegalArgumentException if a value is bad (the message names the key)
     */
    public static ExampleProducer create(Map<String, ?> props) {
        ProducerSettings settings = ProducerSettings.from(props);
        KafkaMetadata metadata = KafkaMetadata.driven(props); // no thread of its own: our poll drives it
        Metrics metrics = new Metrics();
        try {
            NetworkClient client = networkClient(metadata, metrics, settings);
            metadata.attach(client); // kmeta sends its metadata requests on our client, woken by its wakeup()
            ExampleProducer producer = new ExampleProducer(metadata, client, metrics, settings);
            producer.networkThread.start();
            return producer;
        } catch (RuntimeException e) {
            metadata.close();
            metrics.close();
            throw e;
        }
    }

    /** kafka-clients' NetworkClient with kmeta as its metadata source and DNS resolver. */
    private static NetworkClient networkClient(KafkaMetadata metadata, Metrics metrics, ProducerSettings settings) {
        MetadataConfig config = metadata.config();
        return ClientUtils.createNetworkClient(ProducerSettings.networkConfig(config), config.bootstrapServers(),
                config.clientId(), metrics, "example-producer",
                new LogContext("[ExampleProducer clientId=" + config.clientId() + "] "), new ApiVersions(),
                Time.SYSTEM, settings.maxInFlightPerBroker(), config.requestTimeoutMs(),
                null, metadata.metadataUpdater(), metadata.hostResolver(), null, null);
    }

    /**
     * Sends one record to a partition. Blocks at most {@code max.block.ms} in all - first for the partition's leader
     * to be known (kmeta's metadata wait), then, with what is left of the same budget, for room in the buffer - and
     * then returns; the future completes when the leader acknowledges the record.
     *
     * @return the record's future: its {@link Ack}, or the failure - a {@link TimeoutException} when the budget ran
     *         out (a {@code KafkaMetadataTimeoutException} carrying kmeta's diagnosis when it ran out waiting for
     *         metadata), a topic error, a delivery timeout, or {@link IllegalStateException} once closed
     */
    public CompletableFuture<Ack> send(String topic, int partition, byte[] key, byte[] value) {
        Objects.requireNonNull(topic, "topic");
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0: " + partition);
        }
        stats.sent.increment();
        Deadline deadline = Deadline.after(maxBlockMs); // ONE budget for both waits below
        try {
            awaitLeader(topic, partition, deadline);
            awaitBufferSpace(deadline);
        } catch (RuntimeException e) {
            stats.failed.increment();
            return CompletableFuture.failedFuture(e);
        }
        PendingRecord record = new PendingRecord(topic, partition, key, value, System.currentTimeMillis(),
                settings.deliveryTimeoutMs());
        loop.enqueue(record);
        return record.future;
    }

    /** The metadata wait: returns at once on a cache hit, else waits (within the deadline) for a leader. */
    private void awaitLeader(String topic, int partition, Deadline deadline) {
        checkOpen();
        long startNs = System.nanoTime();
        try {
            metadata.awaitTopic(topic, partition, deadline);
        } finally {
            stats.metadataWaitUs.record((System.nanoTime() - startNs) / 1_000);
        }
    }

    /** The buffer wait, with what the metadata wait left of the deadline. */
    private void awaitBufferSpace(Deadline deadline) {
        long metadataMs = deadline.elapsedMs();
        try {
            if (!buffer.tryAcquire(deadline.remainingNs(), TimeUnit.NANOSECONDS)) {
                throw new TimeoutException("No room in the buffer within max.block.ms=" + maxBlockMs + " ("
                        + metadataMs + " ms went to the metadata wait): " + settings.bufferRecords()
                        + " records are waiting for acks (" + ProducerSettings.BUFFER_RECORDS + ")");
            }
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        }
        if (closed.get()) {
            buffer.release(); // pass the wake-up on to the next waiter
            checkOpen();
        }
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("The producer " + metadata.config().clientId() + " is closed");
        }
    }

    /** The producer's counters now. */
    public Stats stats() {
        return stats.snapshot();
    }

    /** The embedded kmeta instance (snapshot, counters, evidence); closed with the producer. */
    public KafkaMetadata metadata() {
        return metadata;
    }

    /**
     * Closes the producer: refuses new records, gives those already accepted until their delivery timeout to be
     * acked, then stops the network thread, fails what is left, closes kmeta (releasing its waiters) and the
     * connections. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        buffer.release(); // wakes a send waiting for room; it passes the wake-up on (awaitBufferSpace)
        loop.beginClose();
        join(settings.deliveryTimeoutMs() + CLOSE_GRACE_MS);
        loop.stop();
        join(CLOSE_GRACE_MS);
        metadata.close();
        loop.failEverything(new IllegalStateException("The producer closed before the record was acknowledged"));
        client.close();
        metrics.close();
    }

    private void join(long timeoutMs) {
        try {
            networkThread.join(timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A record acknowledged by its partition's leader.
     *
     * @param offset   the record's offset in the partition (-1 with {@code acks=0})
     * @param leaderId the broker that acknowledged it
     */
    public record Ack(String topic, int partition, long offset, int leaderId) {
    }

    /**
     * The producer's counters at one moment. {@code recordsSent} counts every {@link #send} call; each record ends
     * acked or failed, so {@code recordsSent - recordsAcked - recordsFailed} are still pending.
     *
     * @param retries              produce attempts retried (disconnects, stale leaders, retriable errors)
     * @param leaderHintsFed       KIP-951 leader hints handed to kmeta from produce answers
     * @param invalidations        partitions marked doubtful to kmeta (stale leader without a hint, disconnect)
     * @param metadataWaitP50Us    median time a send spent in the metadata wait, microseconds
     * @param metadataWaitP99Us    99th percentile of the same, microseconds
     */
    public record Stats(long recordsSent, long recordsAcked, long recordsFailed, long retries, long leaderHintsFed,
                        long invalidations, long metadataWaitP50Us, long metadataWaitP99Us) {
        /** Records sent and neither acked nor failed yet. */
        public long recordsPending() {
            return recordsSent - recordsAcked - recordsFailed;
        }
    }
}
