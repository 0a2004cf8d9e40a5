package dev.kmeta.producer.internal.network;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.internal.Handles;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * of the producer's partitions whose address accepted kmeta's probe's connection (and is not failing since): its
 * InitProducerId goes to a broker its first batches go to - the one, when the pending sends' partitions have one
 * leader - over one connection. It waits at most {@value #MAX_WAIT_MS} ms for the probe (a send to the same leaders is
 * held for that accept anyway), and never names a leader not proven: the producer must not try an address kmeta is
 * trying (a bad one would fail, and be logged, twice). With no such leader - no pending send, a leader failing or
 * slow - the view is the usual one. Only that one fetch is steered; every later one, and any retry of the request,
 * sees every broker.
 *
 * <p>The accept, not the handshake, as for the send's own hold ({@link dev.kmeta.producer.internal.send.LeaderHold}):
 * waiting for the probe's handshake put its round trip before the producer's connection and made the first send slower
 * than stock's (leader elsewhere, 6 runs of 10: 20.6 ms on average against 18.8; 16.3 against 16.9 on the accept). The
 * price: an address that accepts connections and never answers (a proxy in front of a dead broker) gets the
 * InitProducerId, which then waits the producer's {@code request.timeout.ms} before it is retried elsewhere - where
 * before it got it one time in as many brokers - and the producer's first batches to other leaders wait with it.
 * Records for that leader wait to {@code delivery.timeout.ms} either way, as on a stock producer.
 *
 * <p>One per bridge; used by the producer's network thread only; the counter is thread-safe.
 */
final class FirstRequestTarget {
    /** The longest the network thread waits for kmeta's probe to find a leader accepting. */
    static final long MAX_WAIT_MS = 50;

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
     * {@code view}, or a view of only those of its partitions' leaders whose address accepted kmeta's probe (no
     * partitions: the caller reads its brokers). Waits while a leader is untried, at most {@value #MAX_WAIT_MS} ms of
     * the instance's ticker, woken by what can end the wait: a connection outcome kmeta records, a new snapshot,
     * close.
     *
     * @param stop true when the wait is to end now (the producer closing, the bridge closed)
     */
    Cluster steer(Cluster view, BooleanSupplier stop) {
        Map<Integer, Node> leaders = leadersOf(view);
        if (leaders.isEmpty()) {
            return view;
        }
        Deadline deadline = metadata.newDeadline(Duration.ofMillis(MAX_WAIT_MS));
        for (;;) {
            List<Node> accepting = new ArrayList<>(leaders.size());
            boolean untried = look(leaders, accepting);
            if (!accepting.isEmpty()) {
                steered.increment();
                return new Cluster(view.clusterResource().clusterId(), accepting, List.of(), Set.of(), Set.of());
            }
            long leftNs = deadline.remainingNs();
            if (!untried || leftNs <= 0 || stop.getAsBoolean() || metadata.state() == RefreshState.CLOSED
                    || Thread.currentThread().isInterrupted()) {
                return view;
            }
            Handles.parkUntilChange(metadata, leftNs, () -> !stop.getAsBoolean() && look(leaders, null));
        }
    }

    /**
     * Reads kmeta's evidence of the leaders: adds those accepting to {@code accepting} (when given); returns true
     * while none accepts and one is untried or being tried (a wait may still end well).
     */
    private boolean look(Map<Integer, Node> leaders, List<Node> accepting) {
        ConnectionEvidence evidence = metadata.evidence();
        boolean untried = false;
        boolean anyAccepting = false;
        for (Node n : leaders.values()) {
            ConnectionEvidence.Record r = evidence.broker(n.id());
            if (r == null || !r.isAt(n.host(), n.port())) {
                untried = true;
            } else if (r.failingNow()) {
                continue; // refused, unanswered, or dropped since: not where a first request should wait
            } else if (r.everAccepted()) {
                anyAccepting = true;
                if (accepting != null) {
                    accepting.add(n);
                }
            } else {
                untried = true; // being tried
            }
        }
        return untried && !anyAccepting;
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
