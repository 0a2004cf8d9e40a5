package dev.kmeta.producer.internal.view;

import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.internal.Handles;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.utils.Utils;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Kafka objects every KafkaProducer of one kmeta instance shares: the {@link KafkaNodes} of the instance's broker
 * set, the bootstrap view, and the network-thread views ({@link TopicsView}), one per set of topics - producers that
 * use the same topics read one view, not one each. With the {@link TopicParts} kept on kmeta's topic objects, every
 * per-topic and per-partition object the route makes for kafka-clients ({@code PartitionInfo}, {@code Node},
 * {@code TopicPartition} and map entries of a view's {@code Cluster}) exists once per instance and set of topics,
 * whatever the number of producers. Kept in the instance's adapter slot ({@link Handles#adapterSlot}), so it goes
 * with the instance; when the last producer of the instance leaves, it drops every view and the Kafka objects kept
 * on the current snapshot's topics (the instance may live on for other users).
 *
 * <p>Thread-safe. The nodes and the bootstrap view are volatile caches (racing builders make equal objects; either
 * is kept) read lock-free, on sending threads too. The shared views are looked up and stored under this object's
 * monitor, which only producers' network threads take (when their view is stale), and producers joining or leaving;
 * a view is built outside it.
 */
@SuppressKafkaInternalApiUsage("parses the bootstrap addresses with Utils as kafka-clients does")
final class InstanceViews {
    private final List<String> bootstrapServers;
    private volatile KafkaNodes nodes;
    private volatile TopicsView bootstrap;
    /** The shared network-thread views by their topic names, and how many producers read each. Under this. */
    private final Map<Set<String>, Shared> byTopics = new HashMap<>();
    /** Producers of the instance that use these views. Under this. */
    private int producers;

    private InstanceViews(List<String> bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    /** One view of a set of topics and its readers. Under the owner's monitor. */
    private static final class Shared {
        TopicsView view;
        int readers;
    }

    /** The shared views of {@code handle}'s instance; the caller joins them ({@link #leave} when it closes). */
    static InstanceViews join(KafkaMetadata handle) {
        AtomicReference<Object> slot = Handles.adapterSlot(handle);
        Object v = slot.get();
        if (!(v instanceof InstanceViews)) {
            InstanceViews made = new InstanceViews(List.copyOf(handle.config().bootstrapServers()));
            v = slot.compareAndSet(null, made) ? made : slot.get();
        }
        InstanceViews views = (InstanceViews) v;
        synchronized (views) {
            views.producers++;
        }
        return views;
    }

    /**
     * A producer of the instance closed, reading {@code key}'s view (null: none); the last one drops every view,
     * the nodes, and the Kafka objects kept on the topics of {@code current} (the instance's snapshot now).
     */
    void leave(Set<String> key, dev.kmeta.cluster.Cluster current) {
        synchronized (this) {
            release(key);
            if (--producers > 0) {
                return;
            }
            byTopics.clear();
            nodes = null;
            bootstrap = null;
        }
        for (String name : current.topicNames()) { // O(topics), once, at the last producer's close
            TopicMetadata t = current.topic(name);
            if (t != null) {
                TopicParts.forget(t);
            }
        }
    }

    /** Kafka's nodes for the broker set of {@code s}: one object per broker set for every producer. Lock-free. */
    KafkaNodes nodes(dev.kmeta.cluster.Cluster s) {
        KafkaNodes n = nodes;
        if (n == null || n.source != s.nodes()) {
            n = new KafkaNodes(s.nodes(), s.clusterId());
            nodes = n;
        }
        return n;
    }

    /**
     * Before kmeta's first answer its snapshot has no broker; the producer's network client needs one (its
     * {@code leastLoadedNode} throws on an empty list, and InitProducerId goes to any broker), so the view then lists
     * the bootstrap addresses as kafka-clients' own bootstrap cluster does (ids -1, -2, ...; names resolved at
     * connection time), with no topics.
     */
    TopicsView bootstrap() {
        TopicsView b = bootstrap;
        if (b == null) {
            List<Node> list = new ArrayList<>();
            int id = -1;
            for (String address : bootstrapServers) {
                String host = Utils.getHost(address);
                Integer port = Utils.getPort(address);
                if (host != null && port != null) {
                    list.add(new Node(id--, host, port));
                }
            }
            b = TopicsView.brokersOnly(new Cluster(null, list, List.of(), Set.of(), Set.of()));
            bootstrap = b;
        }
        return b;
    }

    /**
     * The view of the topics {@code key} as {@code s} has them over {@code n}: the one another producer of the
     * instance made, when it still matches, else a new one (then shared). The caller reads it instead of
     * {@code previous} (the key of the view it read before, or null). Network threads only.
     */
    TopicsView view(dev.kmeta.cluster.Cluster s, KafkaNodes n, Set<String> key, Set<String> previous,
                    ViewStats stats) {
        synchronized (this) {
            Shared shared = byTopics.get(key);
            if (shared != null && shared.view.holdsAll(s, n, key)) {
                take(shared, key, previous);
                stats.producerViewShared();
                return shared.view;
            }
        }
        TopicsView fresh = TopicsView.build(s, n, key, stats); // outside the monitor: O(partitions)
        stats.producerViewBuilt();
        synchronized (this) {
            Shared shared = byTopics.get(key);
            if (shared == null) {
                shared = new Shared();
                byTopics.put(key, shared);
            } else if (shared.view.holdsAll(s, n, key)) { // another producer made it meanwhile: one view
                take(shared, key, previous);
                return shared.view; // fresh was never adopted: nothing refers to it once this returns
            } else {
                shared.view.drop(); // stale: its readers take the fresh one on their next look
            }
            shared.view = fresh;
            fresh.adopt();
            take(shared, key, previous);
            return fresh;
        }
    }

    /** How many distinct network-thread views the instance holds now (tests). */
    synchronized int sharedViews() {
        return byTopics.size();
    }

    private void take(Shared shared, Set<String> key, Set<String> previous) {
        if (key.equals(previous)) {
            return;
        }
        shared.readers++;
        release(previous);
    }

    private void release(Set<String> key) {
        if (key == null) {
            return;
        }
        Shared shared = byTopics.get(key);
        if (shared != null && --shared.readers <= 0) {
            byTopics.remove(key);
            shared.view.drop();
        }
    }
}
