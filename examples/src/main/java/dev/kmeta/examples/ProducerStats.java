package dev.kmeta.examples;

import java.util.concurrent.atomic.LongAdder;

/**
 * The producer's counters, written by application threads (sends, metadata waits) and the network thread
 * (acks, failures, retries, hints), read by {@link ExampleProducer#stats()}.
 *
 * <p>Thread-safe and lock-free.
 */
final class ProducerStats {
    final LongAdder sent = new LongAdder();
    final LongAdder acked = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder retries = new LongAdder();
    final LongAdder leaderHints = new LongAdder();
    final LongAdder invalidations = new LongAdder();
    final LatencyHistogram metadataWaitUs = new LatencyHistogram();

    ExampleProducer.Stats snapshot() {
        long ackedNow = acked.sum();
        long failedNow = failed.sum();
        // Read last: a record is counted as sent before it can be acked or failed, so sent >= acked + failed.
        long sentNow = sent.sum();
        return new ExampleProducer.Stats(sentNow, ackedNow, failedNow, retries.sum(), leaderHints.sum(),
                invalidations.sum(), metadataWaitUs.percentile(0.50), metadataWaitUs.percentile(0.99));
    }
}
