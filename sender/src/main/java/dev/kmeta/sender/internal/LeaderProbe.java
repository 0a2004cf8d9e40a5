package dev.kmeta.sender.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.internal.EvidenceRecorder;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes the connection evidence cover the brokers that lead partitions of the snapshot (the subscribed topics), not
 * only the one node the sender asks for metadata: a leader whose advertised address nothing listens on is otherwise
 * seen by nobody but the producer, whose record then just waits (issue 14).
 *
 * <p>Each {@link #run} watches the leaders that never became ready on a connection, or whose last recorded event is
 * a problem: one that the client sees ready is recorded as connected (and no longer watched while it stays well);
 * one that is not connected gets one connection attempt, when the client's reconnect backoff allows it (so at most
 * one attempt per {@code reconnect.backoff.ms}, growing to {@code reconnect.backoff.max.ms}), announced in the
 * evidence. Its failure comes back through {@link NodeProvider#handleServerDisconnect} like any other. In driven
 * mode the client is the producer's own: its connections to the leaders are seen the same way, and an attempt the
 * probe would make is usually the producer's already.
 *
 * <p>The watch list is rebuilt from the snapshot when its version moved, at most every {@value #SCAN_INTERVAL_MS} ms
 * (it reads leader ids until every node is found, see {@link #leaders}) - except that a rebuild that read at most
 * {@value #CHEAP_SCAN_READS} partitions is repeated at every new version, and a snapshot naming a broker the probe has
 * not seen at its address yet is scanned at once: a fresh instance's first answer (or a new broker) must not
 * wait out the interval, as a send may be waiting for the probe's first attempt to a leader it just learned (a fresh
 * producer's first send was held 251 ms for it, issue 28). Between rebuilds a run is a few map lookups per watched
 * leader and one per node while a rebuild is deferred, and nothing when none is watched. Connections it opens stay
 * open like the sender's own.
 *
 * <p>Confined to the thread that polls the client; {@link #probes()} may be read from any thread.
 */
@SuppressKafkaInternalApiUsage("probes leader connections on the kafka-clients NetworkClient (KafkaClient) kmeta "
        + "sends on")
final class LeaderProbe {
    private static final Logger log = LoggerFactory.getLogger(LeaderProbe.class);
    static final long SCAN_INTERVAL_MS = 250;
    /** A scan that read at most this many partitions is cheap enough to repeat at every new version. */
    static final int CHEAP_SCAN_READS = 4_096;

    private final String clientId;
    private final EvidenceRecorder evidence;
    private final Map<Integer, Node> watched = new HashMap<>();
    private final AtomicLong probes = new AtomicLong();
    /** The nodes (id and address) of the snapshots scanned so far: a node not among them makes a scan due at once. */
    private final Map<Integer, dev.kmeta.cluster.Node> seen = new HashMap<>();
    private int scannedVersion = -1;
    private long lastScanMs = Long.MIN_VALUE / 2;
    /** Partitions the last scan read ({@link #leaders}); until the first scan, none. */
    private int lastScanReads;

    LeaderProbe(String clientId, EvidenceRecorder evidence) {
        this.clientId = clientId;
        this.evidence = evidence;
    }

    /** Connection attempts the probe made. */
    long probes() {
        return probes.get();
    }

    /** Watches {@code node} from the next run on (its connection dropped or failed), if it still leads something. */
    void watch(Node node) {
        if (node.id() >= 0) {
            watched.put(node.id(), node);
        }
    }

    /**
     * One round over the watched leaders. Returns ms until the next round is due ({@link Long#MAX_VALUE}: nothing to
     * watch until the snapshot changes or a connection drops).
     *
     * @param nowMs    the manager's clock (evidence times)
     * @param netNowMs the client's clock
     */
    long run(KafkaClient client, Cluster snapshot, long nowMs, long netNowMs) {
        if (snapshot.version() != scannedVersion
                && (nowMs - lastScanMs >= SCAN_INTERVAL_MS || lastScanReads <= CHEAP_SCAN_READS
                || namesAnUnseenNode(snapshot))) {
            scan(snapshot, nowMs);
        }
        long nextMs = snapshot.version() != scannedVersion
                ? Math.max(0, lastScanMs + SCAN_INTERVAL_MS - nowMs) : Long.MAX_VALUE;
        if (watched.isEmpty()) {
            return nextMs;
        }
        for (Iterator<Node> it = watched.values().iterator(); it.hasNext(); ) {
            Node n = it.next();
            if (snapshot.node(n.id()) == null) {
                it.remove();
                continue;
            }
            long delayMs = probe(client, n, nowMs, netNowMs);
            if (delayMs < 0) {
                it.remove();
            } else {
                nextMs = Math.min(nextMs, delayMs);
            }
        }
        return nextMs;
    }

    /** Probes one leader; returns -1 when it is proven (connected and well), else ms until it may be probed again. */
    private long probe(KafkaClient client, Node n, long nowMs, long netNowMs) {
        ConnectionEvidence.Record r = evidence.record(n.idString(), n.host() + ":" + n.port(), false);
        if (client.isReady(n, netNowMs)) {
            evidence.connected(r, nowMs);
            return -1;
        }
        if (client.hasInFlightRequests(n.idString())) {
            // TCP is up and its ApiVersions went out (not ready yet): the address accepts connections - a send held
            // for this leader's first attempt need not wait for the handshake's round trips (issue 28, first send)
            evidence.accepted(r);
        }
        long delayMs = client.connectionDelay(n, netNowMs);
        if (delayMs != 0) {
            return delayMs; // connecting, connected but busy, or backing off after a failure
        }
        evidence.attempt(r, nowMs);
        probes.incrementAndGet();
        log.debug("[{}] probing broker {} at {}:{}, which leads partitions and {}", clientId, n.id(), n.host(),
                n.port(), r.everConnected() ? "failed last" : "was never connected");
        client.ready(n, netNowMs); // starts the connection; its failure comes back as a disconnect
        return client.connectionDelay(n, netNowMs);
    }

    /**
     * The ids of the nodes that lead a partition of the snapshot. It reads leader ids only, and stops as soon as every
     * node is found (in a healthy cluster, after a few topics): the snapshot's per-leader index
     * ({@code Cluster.partitionsOnNode}) would cost a full pass and a list of every partition, per snapshot - at
     * 100k partitions the largest allocation of a full answer's step (bench FullAnswer).
     */
    static Set<Integer> leaders(Cluster snapshot) {
        return leaders(snapshot, new int[1]);
    }

    /** {@link #leaders(Cluster)}, counting the partitions read into {@code reads[0]}. */
    static Set<Integer> leaders(Cluster snapshot, int[] reads) {
        int nodes = snapshot.nodes().size();
        Set<Integer> found = new HashSet<>();
        int read = 0;
        for (String name : snapshot.topicNames()) {
            TopicMetadata t = snapshot.topic(name);
            for (int i = 0, n = t.partitionCount(); i < n; i++) {
                PartitionMetadata p = t.partition(i);
                read++;
                if (p.hasLeader() && found.add(p.leaderId()) && found.size() == nodes) {
                    reads[0] = read;
                    return found; // a leader is always one of the snapshot's nodes (Cluster's input rules)
                }
            }
        }
        reads[0] = read;
        return found;
    }

    /** True when the snapshot has a node that no scan saw at its current address (a few lookups per node). */
    private boolean namesAnUnseenNode(Cluster snapshot) {
        for (dev.kmeta.cluster.Node n : snapshot.nodes()) {
            dev.kmeta.cluster.Node s = seen.get(n.id());
            if (s == null || s.port() != n.port() || !s.host().equals(n.host())) {
                return true;
            }
        }
        return false;
    }

    /** Rebuilds the watch list: the snapshot's leaders not proven at their current address. */
    private void scan(Cluster snapshot, long nowMs) {
        scannedVersion = snapshot.version();
        lastScanMs = nowMs;
        seen.clear();
        for (dev.kmeta.cluster.Node n : snapshot.nodes()) {
            seen.put(n.id(), n);
        }
        int[] reads = new int[1];
        Set<Integer> leaders = leaders(snapshot, reads);
        lastScanReads = reads[0];
        watched.keySet().removeIf(id -> !leaders.contains(id));
        for (dev.kmeta.cluster.Node n : snapshot.nodes()) {
            if (n.id() < 0 || !leaders.contains(n.id())) {
                continue;
            }
            ConnectionEvidence.Record r = evidence.broker(n.id());
            boolean proven = r != null && r.isAt(n.host(), n.port()) && r.everConnected() && !r.failingNow();
            Node known = watched.get(n.id());
            if (!proven && (known == null || !known.host().equals(n.host()) || known.port() != n.port())) {
                watched.put(n.id(), new Node(n.id(), n.host(), n.port(), n.rack()));
            }
        }
    }
}
