package dev.kmeta.examples;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.sender.DrivenKafkaMetadata;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.internal.KafkaClientsCompat;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A small but real Kafka producer that embeds kmeta as its metadata source: the documented integration example
 * (docs/embedding.md). It owns one kafka-clients {@code NetworkClient} and one network thread; kmeta runs in driven
 * mode inside that thread's {@code poll}, so metadata requests and produce requests share the connections.
 *
 * <pre>{@code
 * byte[] key = ...;
 * byte[] value = ...;
 * try (ExampleProducer producer = ExampleProducer.create(Map.of("bootstrap.servers", "localhost:9092"))) {
 *     ExampleProducer.Ack ack = producer.send("orders", 3, key, value).get();
 * }
 * }</pre>
 *
 * <p>What it shows: one {@link Deadline} per {@link #send} ({@code max.block.ms}) for the metadata wait and then the
 * buffer wait; records sent to the leader in kmeta's snapshot, acks=all by default; KIP-951 leader hints from produce
 * answers fed back to kmeta; invalidation when a leader is doubtful; retries until {@code delivery.timeout.ms}. Records
 * of a partition are written in send order (one batch per partition in flight). What it leaves out: idempotence
 * (a retry after a lost answer may write a record twice), compression, linger, transactions, a partitioner.
 *
 * <p>Thread-safe: {@link #send} may be called from any number of threads; {@link #close()} and
 * {@link #close(Duration)} are idempotent and bounded ({@code max.block.ms}, or the timeout given). The
 * futures complete on the producer's network thread, so their callbacks run there: they must not block; a
 * {@link #send} from a callback gets a zero budget (it fails at once on a metadata miss or a full buffer) and a
 * {@link #close()} from a callback does not wait.
 */
public final class ExampleProducer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ExampleProducer.class);
    private static final long CLOSE_GRACE_MS = 5_000;

    private final KafkaMetadata metadata;
    private final ProducerSettings settings;
    private final long maxBlockMs;
    private final Semaphore buffer;
    private final ProducerStats stats = new ProducerStats();
    private final NetworkLoop loop;
    private final Thread networkThread;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** {@link #CLOSE_GRACE_MS}; shorter in a test that waits it out. */
    private final long closeGraceMs;

    private ExampleProducer(KafkaMetadata metadata, NetworkClient client, Metrics metrics, ProducerSettings settings,
                            ThreadFactory threads, long closeGraceMs) {
        this.metadata = metadata;
        this.closeGraceMs = closeGraceMs;
        this.settings = settings;
        this.maxBlockMs = metadata.config().maxBlockMs();
        this.buffer = new Semaphore(settings.bufferRecords());
        this.loop = new NetworkLoop(client, metrics, metadata, settings, buffer, stats, Time.SYSTEM);
        this.networkThread = threads.newThread(loop);
        this.networkThread.setName("example-producer-network-thread | " + metadata.config().clientId());
        this.networkThread.setDaemon(true);
    }

    /**
     * A producer for these properties: Kafka's keys ({@code bootstrap.servers}, {@code client.id},
     * {@code max.block.ms}, {@code delivery.timeout.ms}, {@code request.timeout.ms}, {@code acks} (default all),
     * {@code batch.size}, {@code retry.backoff.ms}, {@code security.protocol}, {@code ssl.*}, {@code sasl.*}, ...)
     * plus {@code example.buffer.records} (records accepted and not yet acked, default 10000).
     *
     * @throws dev.kmeta.metadata.ConfigException (an {@link IllegalArgumentException}) if a value of one of kmeta's
     *         keys is bad ({@code bootstrap.servers}, {@code max.block.ms}, {@code request.timeout.ms}, security, ...)
     * @throws org.apache.kafka.common.config.ConfigException (Kafka's) if a value of one of the producer's own keys
     *         ({@code acks}, {@code delivery.timeout.ms}, {@code batch.size}, {@code example.buffer.records}, ...)
     *         or of a network key kafka-clients reads is bad; both messages name the key
     */
    public static ExampleProducer create(Map<String, ?> props) {
        return create(props, Thread::new);
    }

    /**
     * {@link #create(Map)} with the network thread made by {@code threads} (tests: a thread that cannot start). If
     * anything fails once the client is built (attach, the constructor, starting the thread - which throws an
     * {@link Error} when the JVM has no thread to give), the client is closed too: its selector holds a descriptor.
     */
    static ExampleProducer create(Map<String, ?> props, ThreadFactory threads) {
        return create(props, threads, CLOSE_GRACE_MS);
    }

    /** {@link #create(Map, ThreadFactory)} with another close grace than {@value #CLOSE_GRACE_MS} ms (tests). */
    static ExampleProducer create(Map<String, ?> props, ThreadFactory threads, long closeGraceMs) {
        ProducerSettings settings = ProducerSettings.from(props);
        DrivenKafkaMetadata metadata = KafkaMetadata.driven(props); // no thread of its own: our poll drives it
        Metrics metrics = new Metrics();
        NetworkClient client = null;
        try {
            client = networkClient(metadata, metrics, settings);
            metadata.attach(client); // kmeta sends its metadata requests on our client, woken by its wakeup()
            ExampleProducer producer = new ExampleProducer(metadata, client, metrics, settings, threads,
                    closeGraceMs);
            producer.networkThread.start();
            return producer;
        } catch (RuntimeException | Error e) {
            metadata.close();
            if (client != null) {
                client.close();
            }
            metrics.close();
            throw e;
        }
    }

    /** kafka-clients' NetworkClient with kmeta as its metadata source and DNS resolver. */
    private static NetworkClient networkClient(DrivenKafkaMetadata metadata, Metrics metrics, ProducerSettings settings) {
        MetadataConfig config = metadata.config();
        // kafka-clients' ClientUtils.createNetworkClient, as the version on the class path spells it (4.0-4.4)
        return KafkaClientsCompat.createNetworkClient(ProducerSettings.networkConfig(config),
                config.bootstrapServers(), config.clientId(), metrics, "example-producer",
                "[ExampleProducer clientId=" + config.clientId() + "] ", new ApiVersions(),
                Time.SYSTEM, settings.maxInFlightPerBroker(), config.requestTimeoutMs(),
                metadata.metadataUpdater(), metadata.hostResolver());
    }

    /**
     * Sends one record to a partition. Blocks at most {@code max.block.ms} in all - first for the partition's leader
     * to be known (kmeta's metadata wait), then, with what is left of the same budget, for room in the buffer - and
     * then returns; the future completes when the leader acknowledges the record.
     *
     * <p>A leader kmeta knows is not proof that it can be reached: when the leader's advertised address never
     * accepted a connection from here (kmeta's ADVERTISED_LISTENER_UNREACHABLE), the record waits for it no longer
     * than this send's {@code max.block.ms} (and at least {@code max.block.ms} after kmeta first said so), as a
     * metadata wait would, then fails; a leader move meanwhile lets it through. A leader that was reachable before and
     * is down now gets the ordinary retries, until {@code delivery.timeout.ms}.
     *
     * @return the record's future: its {@link Ack}, or the failure - a {@link TimeoutException} when the budget ran
     *         out (a {@code KafkaMetadataTimeoutException} carrying kmeta's diagnosis when it ran out waiting for
     *         metadata, or for a leader whose advertised address never accepted a connection), a topic error, a
     *         delivery timeout (with the partition's diagnosis, when kmeta has one, in its cause chain:
     *         {@code Diagnosis.from(e)}), a {@code KafkaException} when the producer closed before the ack, or
     *         {@link IllegalStateException} once closed
     */
    public CompletableFuture<Ack> send(String topic, int partition, byte[] key, byte[] value) {
        Objects.requireNonNull(topic, "topic");
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0: " + partition);
        }
        stats.sent.increment();
        // On the network thread (a callback) nothing may wait: kmeta runs in that thread's poll and only its acks free
        // buffer slots, so a wait there would freeze the producer and every kmeta waiter for max.block.ms.
        long budgetMs = Thread.currentThread() == networkThread ? 0 : maxBlockMs;
        long blockDeadlineMs = System.currentTimeMillis() + budgetMs;
        Deadline deadline = metadata.newDeadline(Duration.ofMillis(budgetMs)); // ONE budget for both waits below
        try {
            awaitLeader(topic, partition, deadline);
            awaitBufferSpace(deadline, budgetMs);
        } catch (RuntimeException e) {
            stats.failed.increment();
            return CompletableFuture.failedFuture(e);
        }
        PendingRecord record = new PendingRecord(topic, partition, key, value, System.currentTimeMillis(),
                settings.deliveryTimeoutMs(), blockDeadlineMs);
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
    private void awaitBufferSpace(Deadline deadline, long budgetMs) {
        long metadataMs = deadline.elapsedMs();
        try {
            if (!buffer.tryAcquire(deadline.remainingNs(), TimeUnit.NANOSECONDS)) {
                throw new TimeoutException("No room in the buffer within " + (budgetMs == maxBlockMs
                        ? "max.block.ms=" + maxBlockMs : budgetMs + " ms (a send from the producer's network thread)")
                        + " ("
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

    /**
     * The last {@value NetworkLoop#FAILOVERS_KEPT} failovers, oldest first: for each partition whose batch failed
     * (a stale leader, a disconnect, a retriable error) and was then acked, the timeline from the failure to that ack.
     */
    public List<Failover> failovers() {
        return loop.failovers();
    }

    /** The embedded kmeta instance (snapshot, counters, evidence); closed with the producer. */
    public KafkaMetadata metadata() {
        return metadata;
    }

    /**
     * Closes the producer within {@code max.block.ms}: {@code close(Duration.ofMillis(max.block.ms))}. Bounded, as
     * every blocking call of this producer: it returns within {@code max.block.ms} (plus up to
     * {@value #CLOSE_GRACE_MS} ms when a callback holds the network thread), having failed every record not
     * acknowledged by then. Idempotent.
     */
    @Override
    public void close() {
        close(Duration.ofMillis(maxBlockMs));
    }

    /**
     * Closes the producer, as {@code KafkaProducer.close(Duration)}: refuses new records, gives those already accepted
     * up to {@code timeout} to be acknowledged, then stops the network thread, which on its way out fails what is left
     * (a {@code KafkaException} saying the producer closed before the ack, with the partition's diagnosis when kmeta
     * has one), closes kmeta (releasing its waiters) and the connections. Records of a partition kmeta says no
     * longer exists (topic deleted) fail at once: no timeout would let them go. Returns once the thread has ended, at
     * the latest {@code timeout} plus about one poll; if a callback holds the thread, it logs that, closes kmeta and
     * returns {@value #CLOSE_GRACE_MS} ms later (the thread cleans up the rest when the callback returns). Idempotent:
     * a second call returns at once.
     *
     * <p>From a callback (the futures complete on the producer's network thread) it does not wait, as kafka-clients'
     * close from a callback: the thread would wait for itself. It stops the producer at once; records not yet acked
     * fail.
     *
     * @param timeout how long to wait for the records accepted so far; zero: fail them now
     * @throws IllegalArgumentException if {@code timeout} is negative
     */
    public void close(Duration timeout) {
        long timeoutMs = timeoutMs(timeout);
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        buffer.release(); // wakes a send waiting for room; it passes the wake-up on (awaitBufferSpace)
        loop.beginClose();
        String clientId = metadata.config().clientId();
        if (Thread.currentThread() == networkThread) {
            log.warn("[{}] close() called from a callback on the network thread: not waiting for records in flight; "
                    + "they fail", clientId);
            loop.stop("ExampleProducer " + clientId + " was closed from a callback before the record was "
                    + "acknowledged"); // the loop ends after this poll and cleans up (NetworkLoop.run)
            return;
        }
        if (timeoutMs > 0) {
            join(timeoutMs);
        }
        loop.stop("ExampleProducer " + clientId + " closed before the record was acknowledged: close waited "
                + timeoutMs + " ms");
        join(closeGraceMs);
        if (networkThread.isAlive()) { // a callback blocks, or this thread was interrupted: never clean up beside it
            log.warn("[{}] the network thread is still running after close(); it fails what is left and closes the "
                    + "connections when it ends", clientId);
            metadata.close(); // thread-safe: kmeta's waiters are released now all the same
        }
    }

    private static long timeoutMs(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("The timeout cannot be negative: " + timeout);
        }
        try {
            return timeout.toMillis();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
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
     * One partition's way from a failed produce attempt to the ack after it. Times are {@link System#nanoTime()}
     * readings on the network thread; -1 where the event did not happen.
     *
     * @param oldLeaderId     the broker the first failed attempt went to
     * @param newLeaderId     the broker that acked
     * @param cause           the first failure: the error (and the KIP-951 hint it carried) or the disconnect
     * @param attempts        failed attempts before the ack
     * @param lastAckNs       the partition's last ack before the failure (0 if none)
     * @param failedNs        when the first failure was seen
     * @param newLeaderSeenNs when the network loop first found another leader than {@code oldLeaderId} in kmeta's
     *                        snapshot (-1 if the old leader acked)
     * @param learnedFrom     what kmeta had applied by then: "hint", "answer" (a metadata answer), or both
     * @param resentNs        when the attempt that was acked was sent
     * @param ackedNs         when its ack arrived
     * @param clientWaitNs    the client's share: the time between each failed attempt's answer and the next attempt
     *                        (no request in flight: learning the leader, backoff, connecting, the loop's own delay)
     * @param timeline        every step, in ms after {@code failedNs}
     */
    public record Failover(String topic, int partition, int oldLeaderId, int newLeaderId, String cause, int attempts,
                           long lastAckNs, long failedNs, long newLeaderSeenNs, String learnedFrom, long resentNs,
                           long ackedNs, long clientWaitNs, String timeline) {
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
