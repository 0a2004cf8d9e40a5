package dev.kmeta.producer.internal.view;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one producer's views cost to build, counted as they are built: Kafka objects made for topics
 * ({@link TopicParts}), single-topic views made for sending threads, producer views made (or taken from another producer of the instance) for the network thread.
 * Tests and diagnostics read it through {@link ProducerViews#stats()}.
 *
 * <p>Thread-safe (adders).
 */
public final class ViewStats {
    private final LongAdder partsBuilt = new LongAdder();
    private final LongAdder partitionsBuilt = new LongAdder();
    private final LongAdder sendPathBuilds = new LongAdder();
    private final LongAdder topicViewsBuilt = new LongAdder();
    private final LongAdder producerViewsBuilt = new LongAdder();
    private final LongAdder producerViewsReused = new LongAdder();
    private final LongAdder producerViewsShared = new LongAdder();

    void partsBuilt(int partitions, boolean sendPath) {
        partsBuilt.increment();
        partitionsBuilt.add(partitions);
        if (sendPath) {
            sendPathBuilds.add(partitions);
        }
    }

    void topicViewBuilt(int partitions) {
        topicViewsBuilt.increment();
        sendPathBuilds.add(partitions);
    }

    void producerViewBuilt() {
        producerViewsBuilt.increment();
    }

    void producerViewReused() {
        producerViewsReused.increment();
    }

    void producerViewShared() {
        producerViewsShared.increment();
    }

    /** Topics whose Kafka objects (PartitionInfo, partition metadata) were made, by any producer thread. */
    public long partsBuilt() {
        return partsBuilt.sum();
    }

    /** The partitions of those topics. */
    public long partitionsBuilt() {
        return partitionsBuilt.sum();
    }

    /**
     * Partitions of Kafka objects made on the send path (a sending thread's {@code fetch()}): those of its topic's
     * {@link TopicParts} and single-topic view after that topic changed; nothing for a change to another topic.
     */
    public long sendPathBuilds() {
        return sendPathBuilds.sum();
    }

    /** Single-topic {@code Cluster} views made for sending threads (between a topic's change and the next producer view). */
    public long topicViewsBuilt() {
        return topicViewsBuilt.sum();
    }

    /** Producer views ({@code Cluster} + {@code MetadataSnapshot} of the producer's topics) made. */
    public long producerViewsBuilt() {
        return producerViewsBuilt.sum();
    }

    /** kmeta snapshots after which the producer view stood as it was (none of its topics, nor the brokers, changed). */
    public long producerViewsReused() {
        return producerViewsReused.sum();
    }

    /**
     * Network-thread views this producer took from another producer of its instance that uses the same topics
     * ({@link InstanceViews}), instead of building its own.
     */
    public long producerViewsShared() {
        return producerViewsShared.sum();
    }

    @Override
    public String toString() {
        return "ViewStats(parts " + partsBuilt() + " of " + partitionsBuilt() + " partitions, topic views "
                + topicViewsBuilt() + ", send-path partitions " + sendPathBuilds() + ", producer views " + producerViewsBuilt() + " built / " + producerViewsReused()
                + " reused / " + producerViewsShared() + " shared)";
    }
}
