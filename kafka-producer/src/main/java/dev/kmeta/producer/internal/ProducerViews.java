package dev.kmeta.producer.internal;

import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.sender.KafkaMetadata;
import org.apache.kafka.clients.MetadataSnapshot;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.utils.Utils;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Kafka views one kmeta-backed producer reads, scoped to what is asked, so that no view of the whole kmeta
 * snapshot is ever built (Kafka's {@code Cluster} is O(partitions) to construct):
 * <ul>
 *   <li><b>A sending thread</b> ({@link #forSend}) sees the topic its send is about: the producer view when that view
 *   already holds the topic as the current snapshot has it (a map lookup, allocation-free), else a {@code Cluster} of
 *   that topic alone, built once per topic change and kept with kmeta's topic object ({@link TopicParts}). A change to
 *   another topic costs it nothing; a change to its own topic costs O(that topic's partitions), once.</li>
 *   <li><b>The producer's network thread</b> (Sender, accumulator, transaction manager, NetworkClient:
 *   {@link #current}) sees the topics this producer uses ({@link ProducerTopics}, with idle expiry), as a
 *   {@code Cluster} and a {@code MetadataSnapshot} rebuilt only when one of those topics or the broker set changed -
 *   never for another producer's topic, never for a refresh that changed nothing - from the {@link TopicParts} of
 *   unchanged topics, so a rebuild costs hashing, not making PartitionInfos again.</li>
 * </ul>
 * Before kmeta's first answer both see the bootstrap addresses as brokers (ids -1, -2, ...), as kafka-clients' own
 * bootstrap cluster does (the network thread only once its producer began closing: until then it waits for kmeta's
 * answer in {@link ProducerBridge#fetch()}, so that it never tries an address kmeta's thread is trying). After {@link #close()} nothing is retained: the views are dropped, and the Kafka objects
 * of topics live in kmeta's topic objects, which go with the instance's snapshots.
 *
 * <p>Thread-safe. Views are immutable once published; two threads building at once build equal views, and the last
 * one published is kept.
 */
@SuppressKafkaInternalApiUsage("builds the MetadataSnapshot views the producer's Sender reads, and parses addresses "
        + "with Utils as kafka-clients does")
public final class ProducerViews {
    private static final MetadataSnapshot CLOSED = new MetadataSnapshot(null, Map.of(), List.of(), Set.of(), Set.of(),
            Set.of(), null, Map.of(), Cluster.empty());

    private final KafkaMetadata metadata;
    private final ProducerTopics topics;
    private final ViewStats stats = new ViewStats();
    private volatile KafkaNodes nodes;
    private volatile ProducerView built;
    private volatile ProducerView bootstrap;
    private volatile boolean closed;

    ProducerViews(KafkaMetadata metadata, long metadataIdleMs) {
        this.metadata = metadata;
        this.topics = new ProducerTopics(metadataIdleMs, metadata.ticker());
    }

    /** The producer uses {@code topic} at {@code nowMs}: it joins the network thread's view. Allocation-free when known. */
    void add(String topic, long nowMs) {
        topics.add(topic, nowMs);
    }

    /** When this producer began using {@code topic}, on the kmeta instance's clock; -1 when it does not. */
    long firstUsedMs(String topic) {
        return topics.firstUsedMs(topic);
    }

    /** What building these views cost so far. */
    public ViewStats stats() {
        return stats;
    }

    /** The topics in this producer's network-thread scope (a copy). */
    public Set<String> topicsInScope() {
        return Set.copyOf(topics.names());
    }

    // ------------------------------------------------------------ sending threads

    /**
     * A sending thread's view for a send to {@code topic} (null: a thread that named no topic yet), as of the current
     * kmeta snapshot. A topic kmeta does not know yet gives a view with the brokers and no topic (KafkaProducer then
     * waits for it); an invalid one a view that says so.
     */
    Cluster forSend(String topic) {
        dev.kmeta.cluster.Cluster s = metadata.fetch();
        if (closed) {
            return Cluster.empty();
        }
        if (s.nodes().isEmpty()) {
            return bootstrapView().cluster;
        }
        KafkaNodes n = nodes(s);
        if (topic == null) {
            return n.withoutTopics;
        }
        TopicMetadata t = s.topic(topic);
        if (t == null) {
            return s.invalidTopics().contains(topic)
                    ? new Cluster(s.clusterId(), n.list, List.of(), Set.of(), Set.of(topic)) : n.withoutTopics;
        }
        ProducerView b = built;
        if (b != null && b.holds(t, n)) {
            return b.cluster;
        }
        return TopicParts.of(t, n, stats, true).alone(s.clusterId(), stats);
    }

    // ------------------------------------------------------------ the producer's network thread

    /** The network thread's view: this producer's topics as of the current kmeta snapshot. */
    ProducerView current() {
        dev.kmeta.cluster.Cluster s = metadata.fetch();
        ProducerView b = built;
        if (b != null && b.checked == s && b.topicsVersion == topics.version()) {
            return b;
        }
        return refresh(s, b);
    }

    private ProducerView refresh(dev.kmeta.cluster.Cluster s, ProducerView b) {
        if (closed) {
            return ProducerView.closed();
        }
        if (s.nodes().isEmpty()) {
            return bootstrapView();
        }
        topics.expireIdle(System.currentTimeMillis()); // the clock of add(topic, nowMs): KafkaProducer's Time
        int version = topics.version();
        KafkaNodes n = nodes(s);
        if (b != null && b.topicsVersion == version && b.holdsAll(s, n, topics.names())) {
            b.checked = s;
            stats.producerViewReused();
            return b;
        }
        ProducerView fresh = ProducerView.build(s, n, topics.names(), version, stats);
        if (!closed) {
            built = fresh;
        }
        stats.producerViewBuilt();
        return fresh;
    }

    private KafkaNodes nodes(dev.kmeta.cluster.Cluster s) {
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
    private ProducerView bootstrapView() {
        ProducerView b = bootstrap;
        if (b == null) {
            List<Node> nodes = new ArrayList<>();
            int id = -1;
            for (String address : metadata.config().bootstrapServers()) {
                String host = Utils.getHost(address);
                Integer port = Utils.getPort(address);
                if (host != null && port != null) {
                    nodes.add(new Node(id--, host, port));
                }
            }
            b = ProducerView.of(new Cluster(null, nodes, List.of(), Set.of(), Set.of()));
            bootstrap = b;
        }
        return b;
    }

    /** Drops every view; later calls see an empty cluster. */
    void close() {
        closed = true;
        built = null;
        nodes = null;
        bootstrap = null;
    }

    /**
     * One producer view: a Kafka {@code Cluster} and {@code MetadataSnapshot} of the producer's topics, and the kmeta
     * topic objects it was made from. Immutable but for {@link #checked} and the lazily made id-to-name map.
     */
    static final class ProducerView {
        final Cluster cluster;
        final MetadataSnapshot snapshot;
        final Map<String, Uuid> topicIds;
        private final Map<String, TopicMetadata> sources;
        private final KafkaNodes nodes;
        private final int topicsVersion;
        /** The last kmeta snapshot this view was found to match. */
        volatile dev.kmeta.cluster.Cluster checked;
        private volatile Map<Uuid, String> topicNames;

        private ProducerView(Cluster cluster, MetadataSnapshot snapshot, Map<String, Uuid> topicIds,
                             Map<String, TopicMetadata> sources, KafkaNodes nodes, int topicsVersion,
                             dev.kmeta.cluster.Cluster checked) {
            this.cluster = cluster;
            this.snapshot = snapshot;
            this.topicIds = topicIds;
            this.sources = sources;
            this.nodes = nodes;
            this.topicsVersion = topicsVersion;
            this.checked = checked;
        }

        static ProducerView closed() {
            return new ProducerView(Cluster.empty(), CLOSED, Map.of(), Map.of(), null, -1, null);
        }

        /** A view of brokers alone (the bootstrap view). */
        static ProducerView of(Cluster brokers) {
            Map<Integer, Node> byId = new HashMap<>();
            for (Node n : brokers.nodes()) {
                byId.put(n.id(), n);
            }
            return new ProducerView(brokers, new MetadataSnapshot(null, byId, List.of(), Set.of(), Set.of(),
                    Set.of(), null, Map.of(), brokers), Map.of(), Map.of(), null, -1, null);
        }

        static ProducerView build(dev.kmeta.cluster.Cluster s, KafkaNodes n, Set<String> names, int topicsVersion,
                                  ViewStats stats) {
            Map<String, TopicMetadata> sources = new HashMap<>();
            int partitions = 0;
            for (String name : names) {
                TopicMetadata t = s.topic(name);
                partitions += t == null ? 0 : t.partitionCount();
            }
            List<PartitionInfo> infos = new ArrayList<>(partitions);
            Map<String, Uuid> ids = new HashMap<>();
            Set<String> internal = new HashSet<>();
            Set<String> invalid = new HashSet<>();
            Set<String> unauthorized = new HashSet<>();
            for (String name : names) {
                TopicMetadata t = s.topic(name);
                if (t == null) {
                    if (s.invalidTopics().contains(name)) {
                        invalid.add(name);
                    }
                    if (s.unauthorizedTopics().contains(name)) {
                        unauthorized.add(name);
                    }
                    continue;
                }
                sources.put(name, t);
                TopicParts p = TopicParts.of(t, n, stats, false);
                infos.addAll(p.infos);
                if (p.topicId != null) {
                    ids.put(name, p.topicId);
                }
                if (t.isInternal()) {
                    internal.add(name);
                }
                p.forgetAlone();
            }
            Node controller = n.node(s.controllerId());
            Cluster cluster = new Cluster(s.clusterId(), n.list, infos, unauthorized, invalid, internal, controller,
                    ids);
            MetadataSnapshot snapshot = new ScopedMetadataSnapshot(s.clusterId(), n.byId, unauthorized, invalid,
                    internal, controller, ids, cluster, sources);
            return new ProducerView(cluster, snapshot, Collections.unmodifiableMap(ids), sources, n, topicsVersion,
                    s);
        }

        /** True when this view holds {@code t} - the very object - over the broker set of {@code n}. Allocation-free. */
        boolean holds(TopicMetadata t, KafkaNodes n) {
            return nodes != null && nodes.source == n.source && sources.get(t.name()) == t;
        }

        /** True when every topic of {@code names} is in {@code s} as this view has it, over the same brokers. */
        boolean holdsAll(dev.kmeta.cluster.Cluster s, KafkaNodes n, Set<String> names) {
            if (nodes == null || nodes.source != n.source) {
                return false;
            }
            for (String name : names) {
                if (s.topic(name) != sources.get(name)) {
                    return false;
                }
            }
            return true;
        }

        /** Topic id to name, for the producer's Sender (made on first use). */
        Map<Uuid, String> topicNames() {
            Map<Uuid, String> names = topicNames;
            if (names == null) {
                Map<Uuid, String> m = new HashMap<>();
                topicIds.forEach((name, id) -> m.put(id, name));
                names = Collections.unmodifiableMap(m);
                topicNames = names;
            }
            return names;
        }
    }
}
