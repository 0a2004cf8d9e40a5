package dev.kmeta.producer.internal;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.internal.Handles;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * Where a fresh producer's first request goes (issue 28, a first send whose leader is not the bootstrap broker). An
 * idempotent producer's first request is its InitProducerId, sent to kafka-clients' least loaded node: with no
 * connection yet, a broker picked at random. A stock producer sends it over its bootstrap connection, already open
 * for its Metadata request; on the route kmeta asked for the metadata, so the producer opened a connection to a
 * random broker for it, and then - two times in three on three brokers - another to its record's leader.
 *
 * <p>So the view the producer's network thread reads when kmeta's first answer ends its wait
 * ({@code ProducerBridge.fetch()}, called from the Sender's {@code leastLoadedNode}) names as brokers only the leaders
 * of the producer's partitions to which kmeta's leader probe completed a connection (its handshake answered, and not
 * failing since): its InitProducerId goes to a broker its first batches go to - the one, when the pending sends'
 * partitions have one leader - over one connection. It waits at most {@value #MAX_WAIT_MS} ms for the probe (a send
 * to the same leaders is held for its accept anyway), and never names a leader not proven: the producer must not try
 * an address kmeta is trying (a bad one would fail, and be logged, twice), nor wait its {@code request.timeout.ms} on
 * one that accepts connections and never answers. With no such leader - no pending send, a leader failing or slow -
 * the view is the usual one. Only that one fetch is steered; every later one, and any retry of the request, sees
 * every broker.
 *
 * <p>One per bridge; used by the producer's network thread only; the counter is thread-safe.
 */
final class FirstRequestTarget {
    /** The longest the network thread waits for kmeta's probe to find a leader accepting. */
    static final long MAX_WAIT_MS = 100;
    /** The intervals between looks: as a send held for the same leaders looks ({@link LeaderHold}). */
    private static final long FIRST_SLICE_NS = TimeUnit.MICROSECONDS.toNanos(LeaderHold.SETTLE_CHECK_US);
    private static final long MAX_SLICE_NS = TimeUnit.MICROSECONDS.toNanos(LeaderHold.SETTLE_CHECK_MAX_US);

    private final KafkaMetadata metadata;
    private final LongAdder steered = new LongAdder();

    FirstRequestTarget(KafkaMetadata metadata) {
        this.metadata = metadata;
    }

    /** How many first fetches named only accepting leaders (at most one per producer). */
    long steered() {
        return steered.sum();
    }

    /**
     * {@code view}, or a view of only those of its partitions' leaders kmeta's probe connected to (no partitions: the
     * caller reads its brokers). Waits (system clock, bounded) while a leader is untried or being tried.
     *
     * @param stop true when the wait is to end now (the producer closing, the bridge closed)
     */
    Cluster steer(Cluster view, BooleanSupplier stop) {
        Map<Integer, Node> leaders = leadersOf(view);
        if (leaders.isEmpty()) {
            return view;
        }
        long startNs = System.nanoTime();
        long sliceNs = FIRST_SLICE_NS;
        for (;;) {
            ConnectionEvidence evidence = metadata.evidence();
            List<Node> connected = new ArrayList<>(leaders.size());
            boolean untried = false;
            for (Node n : leaders.values()) {
                ConnectionEvidence.Record r = evidence.broker(n.id());
                if (r == null || !r.isAt(n.host(), n.port())) {
                    untried = true;
                } else if (r.failingNow()) {
                    continue; // refused, unanswered, or dropped since: not where a first request should wait
                } else if (r.everConnected()) {
                    connected.add(n);
                } else {
                    untried = true; // being tried: accepted, its handshake not answered yet
                }
            }
            if (!connected.isEmpty()) {
                steered.increment();
                return new Cluster(view.clusterResource().clusterId(), connected, List.of(), Set.of(), Set.of());
            }
            long leftNs = TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MS) - (System.nanoTime() - startNs);
            if (!untried || leftNs <= 0 || stop.getAsBoolean() || metadata.state() == RefreshState.CLOSED
                    || Thread.currentThread().isInterrupted()) {
                return view;
            }
            // a park of at most sliceNs on the system's clock (a new version wakes it early: harmless, it looks again)
            Handles.parkUntilNewVersion(metadata, metadata.fetch().version(), Math.min(leftNs, sliceNs));
            sliceNs = Math.min(MAX_SLICE_NS, sliceNs * 2);
        }
    }

    /** The distinct leaders of the view's partitions, by id (in partition order). */
    private static Map<Integer, Node> leadersOf(Cluster view) {
        Map<Integer, Node> leaders = new LinkedHashMap<>();
        for (String topic : view.topics()) {
            for (PartitionInfo p : view.partitionsForTopic(topic)) {
                Node leader = p.leader();
                if (leader != null && !leader.isEmpty()) {
                    leaders.putIfAbsent(leader.id(), leader);
                }
            }
        }
        return leaders;
    }
}
