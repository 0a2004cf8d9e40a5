package dev.kmeta.cli;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.examples.ExampleProducer;
import dev.kmeta.sender.KafkaMetadata;

import java.util.Map;
import java.util.TreeMap;

/**
 * The demo's one status line per second: kmeta's snapshot version and state, the metadata's age, leaders per
 * broker for the demo topic, records acked, and the send path's metadata waits.
 *
 * <p>Not thread-safe: used by the demo's thread only.
 */
final class DemoStatus {
    private final ExampleProducer producer;
    private final String topic;
    private final int partitions;
    private long lastAnswersApplied = -1;
    private long lastAnswerNs = System.nanoTime();

    DemoStatus(ExampleProducer producer, String topic, int partitions) {
        this.producer = producer;
        this.topic = topic;
        this.partitions = partitions;
    }

    /** The status line at {@code second} seconds into the run. */
    String line(long second) {
        KafkaMetadata metadata = producer.metadata();
        Cluster snapshot = metadata.fetch();
        ExampleProducer.Stats stats = producer.stats();
        return String.format("[%3ds] v%-4d %-11s age %3ds | leaders %s | acked %6d of %6d | metadata wait p50 %dus"
                        + " p99 %dus", second, snapshot.version(), metadata.state(), metadataAgeSeconds(metadata),
                leadersPerBroker(snapshot), stats.recordsAcked(), stats.recordsSent(), stats.metadataWaitP50Us(),
                stats.metadataWaitP99Us());
    }

    /**
     * Seconds since kmeta last applied a metadata answer, as seen from here (the counter of applied answers moved);
     * precise to the status period.
     */
    private long metadataAgeSeconds(KafkaMetadata metadata) {
        long applied = metadata.counters().responsesApplied();
        if (applied != lastAnswersApplied) {
            lastAnswersApplied = applied;
            lastAnswerNs = System.nanoTime();
        }
        return (System.nanoTime() - lastAnswerNs) / 1_000_000_000L;
    }

    /** {@code b0:2 b1:2 b2:2}: how many of the topic's partitions each broker leads ({@code none:n} if leaderless). */
    String leadersPerBroker(Cluster snapshot) {
        Map<String, Integer> counts = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            PartitionMetadata pm = snapshot.partition(topic, p);
            String leader = pm == null || !pm.hasLeader() ? "none" : "b" + pm.leaderId();
            counts.merge(leader, 1, Integer::sum);
        }
        StringBuilder sb = new StringBuilder();
        counts.forEach((broker, n) -> sb.append(sb.length() == 0 ? "" : " ").append(broker).append(':').append(n));
        return sb.toString();
    }
}
