package dev.kmeta.producer.internal.view;

import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.producer.internal.abi.KafkaClientsAbi;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.internal.Handles;
import org.apache.kafka.clients.MetadataSnapshot;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The Kafka views one kmeta-backed producer reads, scoped to what is asked, so that no view of the whole kmeta
 * snapshot is ever built (Kafka's {@code Cluster} is O(partitions) to construct):
 * <ul>
 *   <li><b>A sending thread</b> ({@link #forSend}) sees the topic its send is about: this producer's network-thread
 *   view when it holds the topic as the current snapshot has it - kept on the topic's {@link TopicLook}, so later sends
 *   on the version read that one object, and dropped from the looks when the view is replaced -, else the
 *   network-thread view the instance last kept with the topic ({@link TopicParts#sendView}), else a {@code Cluster}
 *   of that topic alone, built once per topic change and kept with kmeta's topic object; neither of the last two is
 *   kept on a look (a look would keep it reachable for as long as the snapshot stays). A change to another topic
 *   costs it nothing; a change to its own topic costs O(that topic's partitions), once.</li>
 *   <li><b>The producer's network thread</b> (Sender, accumulator, transaction manager, NetworkClient:
 *   {@link #current}) sees the topics this producer uses ({@link ProducerTopics}, with idle expiry), as a
 *   {@code Cluster} and a {@code MetadataSnapshot} rebuilt only when one of those topics or the broker set changed -
 *   never for another producer's topic, never for a refresh that changed nothing, never for a topic that joins before
 *   kmeta has it - from the {@link TopicParts} of
 *   unchanged topics, so a rebuild costs hashing, not making PartitionInfos again. Producers of one kmeta instance that
 *   use the same topics read one such view ({@link InstanceViews}): what the route makes for kafka-clients exists once
 *   per instance, not once per producer.</li>
 * </ul>
 * Before kmeta's first answer both see the bootstrap addresses as brokers (ids -1, -2, ...), as kafka-clients' own
 * bootstrap cluster does (the network thread only once its producer began closing: until then it waits for kmeta's
 * answer in {@link dev.kmeta.producer.internal.ProducerBridge#fetch()}, so that it never tries an address kmeta's
 * thread is trying). After {@link #close()} nothing is retained: this producer's view is dropped, and the last
 * producer of the instance to close drops the shared ones and the Kafka objects kept on the topics
 * ({@link InstanceViews#leave}).
 *
 * <p>Thread-safe. Views are immutable once published; two threads building at once build equal views, and the last
 * one published is kept. The per-producer part of a network-thread view is a small {@link ProducerView} around the
 * shared {@link TopicsView}.
 */
@SuppressKafkaInternalApiUsage("hands the producer's Sender the MetadataSnapshot views it reads")
public final class ProducerViews {
    private static final MetadataSnapshot CLOSED = new MetadataSnapshot(null, Map.of(), List.of(), Set.of(), Set.of(),
            Set.of(), null, Map.of(), Cluster.empty());

    private final KafkaMetadata metadata;
    /** kmeta's current snapshot, read from the instance's manager ({@code Handles.snapshots}): the send path's read. */
    private final Supplier<dev.kmeta.cluster.Cluster> snapshots;
    private final ProducerTopics topics;
    private final InstanceViews shared;
    private final ViewStats stats = new ViewStats();
    private volatile ProducerView built;
    /** The bootstrap view, before kmeta's first answer (the instance's, wrapped once). */
    private volatile ProducerView bootstrapView;
    /** The topics of the shared view this producer reads ({@link InstanceViews}); null before the first. */
    private Set<String> sharedKey;
    private volatile boolean closed;

    public ProducerViews(KafkaMetadata metadata, long metadataIdleMs) {
        this.metadata = metadata;
        this.snapshots = Handles.snapshots(metadata);
        this.topics = new ProducerTopics(metadataIdleMs, metadata.ticker());
        this.shared = InstanceViews.join(metadata);
    }

    /** What {@link #add} did: the topic joined now, its use stamp moved, or neither. */
    public enum Added {
        /** Its first use, or the first since it expired as idle. */
        JOINED,
        /** Known; its use stamp was written (at most once per second per topic). */
        STAMPED,
        /** Known and stamped within the second: nothing written. */
        FRESH
    }

    /** The producer uses {@code topic} at {@code nowMs}: it joins the network thread's view. Allocation-free when known. */
    public Added add(String topic, long nowMs) {
        return topics.add(topic, nowMs);
    }

    /**
     * This producer's look at {@code topic} in kmeta's snapshot {@code s} ({@link TopicLook}: its entry, whether its
     * leaders are proven, its send view), or null when the producer does not use the topic yet. Allocation-free
     * after the first send on a snapshot version.
     */
    public TopicLook look(String topic, dev.kmeta.cluster.Cluster s) {
        return topics.look(topic, s);
    }

    /** When this producer began using {@code topic}, on the kmeta instance's clock; -1 when it does not. */
    public long firstUsedMs(String topic) {
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

    /** How many distinct network-thread views the producers of this instance read now (one per set of topics). */
    public int instanceViews() {
        return shared.sharedViews();
    }

    // ------------------------------------------------------------ sending threads

    /**
     * A sending thread's view for a send to {@code topic} (null: a thread that named no topic yet), as of the current
     * kmeta snapshot. A topic kmeta does not know yet gives a view with the brokers and no topic (KafkaProducer then
     * waits for it); an invalid one a view that says so.
     */
    public Cluster forSend(String topic) {
        dev.kmeta.cluster.Cluster s = snapshots.get(); // the manager's field, not through the handle: two misses fewer
        if (closed) {
            return Cluster.empty();
        }
        TopicLook look = topic == null ? null : topics.look(topic, s);
        Cluster seen = look == null ? null : look.view;
        if (seen != null) {
            return seen; // what this producer's sends showed for the topic on this version: one object, read by onSend
        }
        TopicMetadata t = look != null ? look.entry : topic == null ? null : s.topic(topic);
        Cluster view = viewOf(topic, t, s);
        ProducerView b = built;
        if (look != null && t != null && b != null && view == b.cluster) {
            // this producer's network-thread view, which holds this topic object over these brokers: right for the
            // whole version, and dropped from the looks when that view is replaced (refresh). Not a topic's view
            // alone (made for the moments before the network thread's view holds the topic: the look would keep it,
            // a second Cluster of the topic, for as long as the snapshot stays), nor another producer's view.
            look.view = view;
        }
        return view;
    }

    private Cluster viewOf(String topic, TopicMetadata t, dev.kmeta.cluster.Cluster s) {
        if (s.nodes().isEmpty()) {
            return shared.bootstrap().cluster;
        }
        KafkaNodes n = shared.nodes(s);
        if (topic == null) {
            return n.withoutTopics;
        }
        if (t == null) {
            return s.invalidTopics().contains(topic)
                    ? new Cluster(s.clusterId(), n.list, List.of(), Set.of(), Set.of(topic)) : n.withoutTopics;
        }
        ProducerView b = built;
        if (b != null && b.view.holds(t, n)) {
            return b.cluster; // this producer's network-thread view: the one its looks keep
        }
        Cluster held = TopicParts.sendView(t, s.nodes());
        if (held != null) {
            return held; // another view of the instance that holds this topic object over these brokers
        }
        return TopicParts.of(t, n, stats, true).alone(s.clusterId(), stats);
    }

    // ------------------------------------------------------------ the producer's network thread

    /** {@link #current()}'s {@code Cluster}: what the network thread's {@code fetch()} shows. */
    public Cluster currentCluster() {
        return current().cluster;
    }

    /** {@link #current()}'s {@code MetadataSnapshot}: what the Sender's {@code fetchMetadataSnapshot()} reads. */
    public MetadataSnapshot currentSnapshot() {
        return current().snapshot;
    }

    /** {@link #current()}'s topic ids by name. */
    public Map<String, Uuid> currentTopicIds() {
        return current().topicIds;
    }

    /** {@link #current()}'s topic names by id (made on first use, once per shared view). */
    public Map<Uuid, String> currentTopicNames() {
        return current().topicNames();
    }

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
            ProducerView boot = bootstrapView;
            if (boot == null) {
                boot = new ProducerView(shared.bootstrap(), -1, null, Set.of());
                bootstrapView = boot;
            }
            return boot;
        }
        if (b == null || b.checked != s) {
            topics.dropLooksNotAt(s.version()); // the sends' looks at older snapshots: their entries and views go
        }
        topics.expireIdle(KafkaClientsAbi.producerNowMs()); // the clock of add(topic, nowMs)
        int version = topics.version();
        KafkaNodes n = shared.nodes(s);
        if (b != null && b.topicsVersion == version && b.view.holdsAll(s, n, b.scope)) {
            b.checked = s;
            stats.producerViewReused();
            return b;
        }
        Set<String> key = Set.copyOf(topics.names());
        if (b != null && b.topicsVersion != version && b.view.isExactly(s, n, key)) {
            // the producer's topics changed, not what the snapshot has of them: a topic kmeta does not have yet joined
            // (a send to a new topic: it arrives with the next snapshot, which rebuilds), or one it lacked left
            return rescope(b, key, version, s);
        }
        ProducerView fresh;
        synchronized (this) { // the network thread's; close() takes it to leave the shared view once
            if (closed) {
                return ProducerView.closed();
            }
            fresh = new ProducerView(shared.view(s, n, key, sharedKey, stats), version, s, key);
            sharedKey = key;
            built = fresh;
        }
        if (b != null && fresh.cluster != b.cluster) {
            topics.dropLooks(); // the sends' looks name the view replaced: they are made again, on this one
        }
        return fresh;
    }

    /** {@code b}'s view, kept for the producer's new topic set {@code key}: no Kafka object is made again. */
    private ProducerView rescope(ProducerView b, Set<String> key, int version, dev.kmeta.cluster.Cluster s) {
        ProducerView same = new ProducerView(b.view, version, s, key);
        synchronized (this) { // as a build: close() must not see a view published after it
            if (closed) {
                return ProducerView.closed();
            }
            built = same;
        }
        stats.producerViewReused();
        return same;
    }

    /** Drops this producer's view and leaves the instance's shared ones; later calls see an empty cluster. */
    public void close() {
        Set<String> key;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            built = null;
            bootstrapView = null;
            key = sharedKey;
            sharedKey = null;
        }
        shared.leave(key, metadata.fetch());
    }

    /**
     * One producer's network-thread view: the shared {@link TopicsView} of its topics, with what this producer
     * checked it against (its topics' version, the last kmeta snapshot it matched). Immutable but for {@link #checked}.
     */
    static final class ProducerView {
        final TopicsView view;
        final Cluster cluster;
        final MetadataSnapshot snapshot;
        final Map<String, Uuid> topicIds;
        private final int topicsVersion;
        /**
         * The producer's topics this view was made or kept for: the shared view's names, or a set that differs from
         * them only in topics the snapshot lacked ({@link #rescope}).
         */
        final Set<String> scope;
        /** The last kmeta snapshot this view was found to match. */
        volatile dev.kmeta.cluster.Cluster checked;

        ProducerView(TopicsView view, int topicsVersion, dev.kmeta.cluster.Cluster checked, Set<String> scope) {
            this.view = view;
            this.scope = scope;
            this.cluster = view.cluster;
            this.snapshot = view.snapshot;
            this.topicIds = view.topicIds;
            this.topicsVersion = topicsVersion;
            this.checked = checked;
        }

        static ProducerView closed() {
            return new ProducerView(CLOSED_VIEW, -1, null, Set.of());
        }

        /** Topic id to name, for the producer's Sender (made on first use, once per shared view). */
        Map<Uuid, String> topicNames() {
            return view.topicNames();
        }
    }

    private static final TopicsView CLOSED_VIEW = TopicsView.closed(CLOSED);
}
