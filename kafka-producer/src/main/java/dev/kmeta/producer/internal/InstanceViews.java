package dev.kmeta.producer.internal;

import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.sender.KafkaMetadata;
import org.apache.kafka.clients.MetadataSnapshot;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.utils.Utils;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The kafka-clients views of one kmeta instance's snapshots - the {@link Cluster}, the {@link MetadataSnapshot} the
 * producer's Sender reads leader epochs from, and the topic id maps - built once per kmeta snapshot per kmeta
 * <em>instance</em>, whatever the number of producers on it. Every producer on a shared instance holds the same
 * {@code InstanceViews} ({@link #acquire}); a private instance has its own.
 *
 * <p>Thread-safe. A hit ({@link #of}: the cached views are of the current snapshot) is two volatile reads and a
 * compare, allocation-free. The Cluster view comes from {@link KafkaMetadata#kafkaCluster()} (kmeta caches it per
 * snapshot); the snapshot and the id maps, which only the producers' network threads ask for, are built on first
 * use under the views' monitor, so N network threads asking at once build them once.
 */
public final class InstanceViews {
    private static final Object REGISTRY_LOCK = new Object();
    /** Views of shared instances that some producer uses; guarded by {@link #REGISTRY_LOCK}. */
    private static final List<InstanceViews> SHARED = new ArrayList<>();

    private final KafkaMetadata anchor;
    private final boolean registered;
    /** Producers using these views; guarded by {@link #REGISTRY_LOCK}. */
    private int users = 1;
    private final AtomicReference<Views> current = new AtomicReference<>();
    private final LongAdder viewsBuilt = new LongAdder();
    private final LongAdder snapshotsBuilt = new LongAdder();
    private volatile Cluster bootstrap;

    private InstanceViews(KafkaMetadata anchor, boolean registered) {
        this.anchor = anchor;
        this.registered = registered;
    }

    /**
     * The views of {@code handle}'s instance: for a shared instance the ones another producer on it already holds,
     * if any; released with {@link #release()}.
     */
    static InstanceViews acquire(KafkaMetadata handle, boolean shared) {
        if (!shared) {
            return new InstanceViews(handle, false);
        }
        synchronized (REGISTRY_LOCK) {
            for (InstanceViews v : SHARED) {
                if (v.anchor.sameInstanceAs(handle)) {
                    v.users++;
                    return v;
                }
            }
            InstanceViews v = new InstanceViews(handle, true);
            SHARED.add(v);
            return v;
        }
    }

    /**
     * One producer stopped using these views; the last one drops them from the registry and lets the cached views
     * go (a thread that sent through a closed producer still refers to its bridge, not to O(partitions) views).
     */
    void release() {
        synchronized (REGISTRY_LOCK) {
            if (--users > 0) {
                return;
            }
            if (registered) {
                SHARED.remove(this);
            }
        }
        current.set(null);
        bootstrap = null;
    }

    /** The views of the current snapshot of {@code handle} (a handle of this instance). */
    Views of(KafkaMetadata handle) {
        Views v = current.get();
        if (v != null && v.source == handle.fetch()) {
            return v;
        }
        return refresh(handle);
    }

    private Views refresh(KafkaMetadata handle) {
        for (;;) {
            dev.kmeta.cluster.Cluster source = handle.fetch();
            Cluster view;
            if (source.nodes().isEmpty()) {
                view = bootstrapView(handle);
            } else {
                view = handle.kafkaCluster();
                if (handle.fetch() != source) {
                    continue; // a snapshot came between the two reads: the view may be of either; read again
                }
            }
            Views v = current.get();
            if (v != null && v.source == source) {
                return v;
            }
            if (v != null && v.source.version() > source.version()) {
                continue; // another thread installed newer views meanwhile
            }
            Views fresh = new Views(source, view);
            if (current.compareAndSet(v, fresh)) {
                viewsBuilt.increment();
                return fresh;
            }
        }
    }

    /**
     * Before kmeta's first answer its snapshot has no broker; the producer's network client needs one (its
     * {@code leastLoadedNode} throws on an empty list, and InitProducerId goes to any broker), so the view then lists
     * the bootstrap addresses as kafka-clients' own bootstrap cluster does (ids -1, -2, ...; names resolved at
     * connection time), with no topics.
     */
    private Cluster bootstrapView(KafkaMetadata handle) {
        Cluster b = bootstrap;
        if (b == null) {
            List<Node> nodes = new ArrayList<>();
            int id = -1;
            for (String address : handle.config().bootstrapServers()) {
                String host = Utils.getHost(address);
                Integer port = Utils.getPort(address);
                if (host != null && port != null) {
                    nodes.add(new Node(id--, host, port));
                }
            }
            b = new Cluster(null, nodes, List.of(), Set.of(), Set.of());
            bootstrap = b;
        }
        return b;
    }

    /** How many snapshots got views (one per kmeta snapshot a producer on this instance looked at). */
    public long viewsBuilt() {
        return viewsBuilt.sum();
    }

    /** How many {@link MetadataSnapshot}s were built (at most one per kmeta snapshot). */
    public long snapshotsBuilt() {
        return snapshotsBuilt.sum();
    }

    /** The views of one kmeta snapshot. Immutable once its lazy parts are built. */
    final class Views {
        final dev.kmeta.cluster.Cluster source;
        final Cluster cluster;
        private volatile MetadataSnapshot snapshot;
        private volatile Map<String, Uuid> topicIds;
        private volatile Map<Uuid, String> topicNames;

        Views(dev.kmeta.cluster.Cluster source, Cluster cluster) {
            this.source = source;
            this.cluster = cluster;
        }

        Map<String, Uuid> topicIds() {
            Map<String, Uuid> ids = topicIds;
            if (ids == null) {
                buildIds();
                ids = topicIds;
            }
            return ids;
        }

        Map<Uuid, String> topicNames() {
            Map<Uuid, String> names = topicNames;
            if (names == null) {
                buildIds();
                names = topicNames;
            }
            return names;
        }

        private synchronized void buildIds() {
            if (topicIds != null) {
                return;
            }
            Map<String, Uuid> ids = new HashMap<>();
            Map<Uuid, String> names = new HashMap<>();
            for (String name : source.topicNames()) {
                UUID id = source.topicId(name);
                if (id != null) {
                    Uuid uuid = new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
                    ids.put(name, uuid);
                    names.put(uuid, name);
                }
            }
            topicNames = Collections.unmodifiableMap(names);
            topicIds = Collections.unmodifiableMap(ids);
        }

        MetadataSnapshot snapshot() {
            MetadataSnapshot s = snapshot;
            return s != null ? s : buildSnapshot();
        }

        private synchronized MetadataSnapshot buildSnapshot() {
            if (snapshot != null) {
                return snapshot;
            }
            Map<Integer, Node> nodes = new HashMap<>();
            for (Node n : cluster.nodes()) {
                nodes.put(n.id(), n);
            }
            List<MetadataResponse.PartitionMetadata> partitions = new ArrayList<>();
            for (String name : source.topicNames()) {
                TopicMetadata t = source.topic(name);
                for (PartitionMetadata p : t.partitions()) {
                    partitions.add(new MetadataResponse.PartitionMetadata(Errors.forCode(p.errorCode()),
                            new TopicPartition(name, p.partition()),
                            p.hasLeader() ? Optional.of(p.leaderId()) : Optional.empty(),
                            p.leaderEpoch() == PartitionMetadata.NO_EPOCH ? Optional.empty()
                                    : Optional.of(p.leaderEpoch()),
                            ids(p.replicas()), ids(p.inSyncReplicas()), ids(p.offlineReplicas())));
                }
            }
            MetadataSnapshot s = new MetadataSnapshot(cluster.clusterResource().clusterId(), nodes, partitions,
                    cluster.unauthorizedTopics(), cluster.invalidTopics(), cluster.internalTopics(),
                    cluster.controller(), topicIds(), cluster);
            snapshotsBuilt.increment();
            snapshot = s;
            return s;
        }

        private List<Integer> ids(int[] ids) {
            List<Integer> out = new ArrayList<>(ids.length);
            for (int id : ids) {
                out.add(id);
            }
            return out;
        }
    }
}
