package dev.kmeta.examples;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One record between {@code send()} and its acknowledgement: where it goes, its bytes, when it must be delivered by,
 * and the future its sender holds.
 *
 * <p>Thread-safe: immutable except its completion, which happens once ({@link #finish()}), on the network thread or
 * in {@code close()}.
 */
final class PendingRecord {
    final String topic;
    final int partition;
    final byte[] key;
    final byte[] value;
    final long createdMs;
    final long deliveryDeadlineMs;
    /**
     * When the {@code max.block.ms} budget of its {@code send()} ends (wall clock ms): what a record waiting for a
     * leader whose advertised address never accepted a connection may wait until (then it fails as a metadata wait
     * would).
     */
    final long blockDeadlineMs;
    final CompletableFuture<ExampleProducer.Ack> future = new CompletableFuture<>();
    private final AtomicBoolean finished = new AtomicBoolean();

    /** A record whose send's budget was spent by the time it was accepted. */
    PendingRecord(String topic, int partition, byte[] key, byte[] value, long createdMs, long deliveryTimeoutMs) {
        this(topic, partition, key, value, createdMs, deliveryTimeoutMs, createdMs);
    }

    PendingRecord(String topic, int partition, byte[] key, byte[] value, long createdMs, long deliveryTimeoutMs,
                  long blockDeadlineMs) {
        this.topic = topic;
        this.partition = partition;
        this.key = key;
        this.value = value;
        this.createdMs = createdMs;
        this.deliveryDeadlineMs = createdMs + deliveryTimeoutMs;
        this.blockDeadlineMs = blockDeadlineMs;
    }

    /** Bytes this record takes in a batch (a rough count: key, value and a record's overhead). */
    int sizeInBytes() {
        return (key == null ? 0 : key.length) + (value == null ? 0 : value.length) + 16;
    }

    /** True for the one caller that gets to complete this record (and count it, and free its buffer slot). */
    boolean finish() {
        return finished.compareAndSet(false, true);
    }
}
