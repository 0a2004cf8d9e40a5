package dev.kmeta.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fake Kafka cluster that speaks Kafka's wire protocol on 127.0.0.1, for measurements and tests that need many
 * partitions cheaply: {@code n} "brokers" (node ids 0..n-1, one listening port each, in this JVM) that answer
 * ApiVersions, Metadata (any version the kafka-clients on the class path knows, topic ids and leader epochs
 * included), InitProducerId (non-transactional only) and Produce (acks 0, 1 and -1; topics by name, or by id from
 * v13), enough for an unmodified {@code KafkaProducer} (idempotent by default) and kmeta to send and get acks.
 * franz-go's {@code kfake} is the precedent. Requests and answers are kafka-clients' own message classes
 * ({@code org.apache.kafka.common.message.*}); kafka-clients must be the version testkit was built with.
 *
 * <p>What it keeps is compact: per topic its name, id, partition count, a leader offset and one leader epoch (the
 * leader of partition {@code p} is node {@code (first + p + moves) % n}; replicas and ISR are that node and the
 * next ones, up to 3), so 1,000 topics x 100 partitions cost about 100 KB. Every answer is built from that state
 * when asked, so a change ({@link #moveLeaders}, {@link #bumpLeaderEpoch}, {@link #createTopic},
 * {@link #deleteTopic}, {@link #leaderless}) shows in the next answer. A produce to a node that does not lead the partition gets
 * {@code NOT_LEADER_OR_FOLLOWER}, with the KIP-951 current leader and its endpoint unless {@link #leaderHints} was
 * turned off. Records are not kept: a produce answer gives the next offsets of one counter for the whole cluster,
 * and no sequence is checked. Topics are never created automatically.
 *
 * <p>It counts the requests each node received by api key ({@link #requestCount}), the partitions its Metadata
 * answers listed and the records it acknowledged. A request it cannot answer (another api, a transactional
 * InitProducerId) is logged at WARN and counted; other api keys close the connection, as a broker that does not
 * advertise them would.
 *
 * <p>Threads: one daemon acceptor per node and one daemon thread per connection (named {@code fakebroker-<node>-...}),
 * so requests on a connection are answered in order; {@link #close()} closes every socket and joins them.
 *
 * <p>Thread-safe: every method may be called from any thread. A change is atomic for the topic it changes; a
 * Metadata answer built while topics change may show some of the changes and not others (as a real cluster's
 * brokers can).
 */
public final class FakeBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FakeBroker.class);
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int API_KEY_SLOTS = maxApiKey() + 2; // the last slot counts unknown keys

    /** One topic's whole state; immutable, replaced by every change. */
    record TopicState(String name, Uuid id, int partitions, int firstLeader, int moves, int epoch) {
    }

    private final String clusterId;
    private final int nodeCount;
    private final ServerSocket[] listeners;
    private final Thread[] acceptors;
    private final AtomicLongArray[] requestCounts;
    /** The host each node's entry in a Metadata answer (and a produce answer's leader hint) names. */
    private final java.util.concurrent.atomic.AtomicReferenceArray<String> advertisedHosts;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Set<Thread> connectionThreads = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionIds = new AtomicInteger();
    private final Object changeLock = new Object();
    private final Map<String, TopicState> byName = new ConcurrentHashMap<>();
    private final Map<Uuid, TopicState> byId = new ConcurrentHashMap<>();
    private final AtomicInteger topicsCreated = new AtomicInteger();
    private final AtomicLong nextOffset = new AtomicLong();
    private final AtomicLong nextProducerId = new AtomicLong(1_000);
    private final AtomicLong partitionsAnswered = new AtomicLong();
    /** Topics whose partitions have no leader now ({@link #leaderless}). */
    private final Set<String> leaderlessTopics = ConcurrentHashMap.newKeySet();
    private final AtomicLong recordsAcked = new AtomicLong();
    private final FakeBrokerAnswers answers;
    private volatile boolean leaderHints = true;
    private volatile boolean closed;

    private FakeBroker(int nodeCount, String clusterId) {
        if (nodeCount < 1) {
            throw new IllegalArgumentException("a fake cluster needs at least one node: " + nodeCount);
        }
        this.nodeCount = nodeCount;
        this.clusterId = clusterId;
        this.listeners = new ServerSocket[nodeCount];
        this.acceptors = new Thread[nodeCount];
        this.requestCounts = new AtomicLongArray[nodeCount];
        this.advertisedHosts = new java.util.concurrent.atomic.AtomicReferenceArray<>(nodeCount);
        for (int n = 0; n < nodeCount; n++) {
            advertisedHosts.set(n, LOOPBACK.getHostAddress());
        }
        try {
            for (int n = 0; n < nodeCount; n++) {
                requestCounts[n] = new AtomicLongArray(API_KEY_SLOTS);
                ServerSocket s = new ServerSocket();
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(LOOPBACK, 0), 128);
                listeners[n] = s;
            }
        } catch (IOException e) {
            closeListeners();
            throw new UncheckedIOException("cannot listen on " + LOOPBACK.getHostAddress(), e);
        }
        this.answers = new FakeBrokerAnswers(this);
        for (int n = 0; n < nodeCount; n++) {
            int node = n;
            acceptors[n] = new Thread(() -> accept(node), "fakebroker-" + n + "-accept");
            acceptors[n].setDaemon(true);
            acceptors[n].start();
        }
        LOG.debug("fake broker {} started: {} nodes at {}", clusterId, nodeCount, bootstrapServers());
    }

    /** Starts {@code nodes} fake brokers (node ids 0..nodes-1) on ephemeral loopback ports, with no topic. */
    public static FakeBroker start(int nodes) {
        return new FakeBroker(nodes, "fake-" + Uuid.randomUuid());
    }

    /** {@code 127.0.0.1:<port>} of every node, comma-separated, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        StringBuilder b = new StringBuilder();
        for (int n = 0; n < nodeCount; n++) {
            b.append(n == 0 ? "" : ",").append(LOOPBACK.getHostAddress()).append(':').append(port(n));
        }
        return b.toString();
    }

    /** How many nodes (brokers) this fake cluster has. */
    public int nodeCount() {
        return nodeCount;
    }

    /** The port node {@code nodeId} listens on. */
    public int port(int nodeId) {
        return listeners[Objects.checkIndex(nodeId, nodeCount)].getLocalPort();
    }

    /**
     * Advertises node {@code nodeId} under {@code host} (at its port) from the next answer on; 127.0.0.1 until then.
     * A host that resolves elsewhere (a client's DNS hook) makes the node a broker whose advertised listener the
     * client cannot reach while the bootstrap answers.
     */
    public FakeBroker advertise(int nodeId, String host) {
        advertisedHosts.set(Objects.checkIndex(nodeId, nodeCount), Objects.requireNonNull(host, "host"));
        return this;
    }

    /** The host node {@code nodeId} is advertised under ({@link #advertise}). */
    public String advertisedHost(int nodeId) {
        return advertisedHosts.get(Objects.checkIndex(nodeId, nodeCount));
    }

    /** The cluster id every Metadata answer carries. */
    public String clusterId() {
        return clusterId;
    }

    // ------------------------------------------------------------------ topics

    /**
     * Creates a topic with a fresh id, leader epoch 0 and its leaders spread over the nodes (partition 0's leader
     * rotates from topic to topic).
     *
     * @return the topic's id
     * @throws IllegalStateException if the topic exists
     */
    public Uuid createTopic(String name, int partitions) {
        Objects.requireNonNull(name, "name");
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
        }
        synchronized (changeLock) {
            if (byName.containsKey(name)) {
                throw new IllegalStateException("topic exists: " + name);
            }
            Uuid id = Uuid.randomUuid();
            TopicState t = new TopicState(name, id, partitions, topicsCreated.getAndIncrement() % nodeCount, 0, 0);
            byName.put(name, t);
            byId.put(id, t);
            return id;
        }
    }

    /** {@link #createTopic} for each of {@code names}. */
    public void createTopics(Collection<String> names, int partitions) {
        for (String name : names) {
            createTopic(name, partitions);
        }
    }

    /**
     * Moves the leader of every partition of {@code topic} to the next node (a no-op for the leaders of a
     * single-node cluster) and bumps the topic's leader epoch.
     *
     * @return the new leader epoch
     * @throws IllegalArgumentException if there is no such topic
     */
    public int moveLeaders(String topic) {
        synchronized (changeLock) {
            TopicState t = existing(topic);
            return replace(new TopicState(t.name(), t.id(), t.partitions(), t.firstLeader(), t.moves() + 1,
                    t.epoch() + 1)).epoch();
        }
    }

    /**
     * Bumps the leader epoch of every partition of {@code topic}, leaders unchanged.
     *
     * @return the new leader epoch
     * @throws IllegalArgumentException if there is no such topic
     */
    public int bumpLeaderEpoch(String topic) {
        synchronized (changeLock) {
            TopicState t = existing(topic);
            return replace(new TopicState(t.name(), t.id(), t.partitions(), t.firstLeader(), t.moves(),
                    t.epoch() + 1)).epoch();
        }
    }

    /** Deletes a topic; returns whether it existed. Re-creating it ({@link #createTopic}) gives it a new id. */
    public boolean deleteTopic(String topic) {
        synchronized (changeLock) {
            TopicState t = byName.remove(topic);
            if (t != null) {
                byId.remove(t.id());
            }
            return t != null;
        }
    }

    /** The topic's id, or null if there is no such topic. */
    public Uuid topicId(String topic) {
        TopicState t = byName.get(topic);
        return t == null ? null : t.id();
    }

    /** The topic's partition count, or 0 if there is no such topic. */
    public int partitionCount(String topic) {
        TopicState t = byName.get(topic);
        return t == null ? 0 : t.partitions();
    }

    /**
     * The node that leads the partition now (-1 while the topic is {@link #leaderless}).
     *
     * @throws IllegalArgumentException if there is no such topic or partition
     */
    public int leader(String topic, int partition) {
        TopicState t = existing(topic);
        Objects.checkIndex(partition, t.partitions());
        return leaderOf(t, partition);
    }

    /**
     * The topic's leader epoch now (every partition of a topic has the same).
     *
     * @throws IllegalArgumentException if there is no such topic
     */
    public int leaderEpoch(String topic) {
        return existing(topic).epoch();
    }

    /** How many topics exist now. */
    public int topicCount() {
        return byName.size();
    }

    /** How many partitions all topics have together now. */
    public long totalPartitions() {
        long n = 0;
        for (TopicState t : byName.values()) {
            n += t.partitions();
        }
        return n;
    }

    /**
     * Whether a {@code NOT_LEADER_OR_FOLLOWER} produce answer names the current leader and its endpoint (KIP-951,
     * Produce v10+), as Kafka brokers do since 3.7. On by default.
     */
    public FakeBroker leaderHints(boolean on) {
        this.leaderHints = on;
        return this;
    }

    /**
     * Takes away (or gives back) the leader of every partition of {@code topic}, as just after a topic's creation or
     * while its replicas are offline: Metadata answers {@code LEADER_NOT_AVAILABLE} with leader -1 for each, and a
     * produce to it gets {@code NOT_LEADER_OR_FOLLOWER} without a current leader. Given back, the leaders are where
     * they were.
     *
     * @throws IllegalArgumentException if there is no such topic
     */
    public FakeBroker leaderless(String topic, boolean on) {
        existing(topic);
        if (on) {
            leaderlessTopics.add(topic);
        } else {
            leaderlessTopics.remove(topic);
        }
        return this;
    }

    // ------------------------------------------------------------------ counters

    /** Requests with this api key all nodes received since start or {@link #resetCounters()}. */
    public long requestCount(ApiKeys api) {
        long n = 0;
        for (int node = 0; node < nodeCount; node++) {
            n += requestCount(node, api);
        }
        return n;
    }

    /** Requests with this api key node {@code nodeId} received since start or {@link #resetCounters()}. */
    public long requestCount(int nodeId, ApiKeys api) {
        return requestCounts[Objects.checkIndex(nodeId, nodeCount)].get(api.id);
    }

    /** Requests with an api key this kafka-clients does not know, on all nodes. */
    public long unknownRequestCount() {
        long n = 0;
        for (AtomicLongArray counts : requestCounts) {
            n += counts.get(API_KEY_SLOTS - 1);
        }
        return n;
    }

    /** Partitions listed by all Metadata answers since start or {@link #resetCounters()}. */
    public long partitionsAnswered() {
        return partitionsAnswered.get();
    }

    /** Records acknowledged by produce answers since start or {@link #resetCounters()}. */
    public long recordsAcked() {
        return recordsAcked.get();
    }

    /** Sets every counter to 0. */
    public void resetCounters() {
        for (AtomicLongArray counts : requestCounts) {
            for (int i = 0; i < counts.length(); i++) {
                counts.set(i, 0);
            }
        }
        partitionsAnswered.set(0);
        recordsAcked.set(0);
    }

    /** Connections open now, on all nodes. */
    public int openConnections() {
        return sockets.size();
    }

    /**
     * Stops: closes the listening sockets and every connection, and waits (up to 10 s) for the threads to end.
     * Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeListeners();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        List<Thread> threads = new ArrayList<>(connectionThreads);
        threads.addAll(List.of(acceptors));
        long endNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(endNs - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (t.isAlive()) {
                LOG.warn("fake broker {}: thread {} did not end", clusterId, t.getName());
            }
        }
        LOG.debug("fake broker {} stopped", clusterId);
    }

    // ------------------------------------------------------------------ what the answers read

    TopicState topic(String name) {
        return byName.get(name);
    }

    TopicState topic(Uuid id) {
        return byId.get(id);
    }

    Collection<TopicState> topics() {
        return byName.values();
    }

    /** The partition's leader, or -1 while its topic is {@link #leaderless}. */
    int leaderOf(TopicState t, int partition) {
        return leaderlessTopics.contains(t.name()) ? -1 : homeOf(t, partition);
    }

    /** The node that leads the partition when it has a leader. */
    int homeOf(TopicState t, int partition) {
        return (t.firstLeader() + partition + t.moves()) % nodeCount;
    }

    boolean leaderHints() {
        return leaderHints;
    }

    long takeOffsets(long records) {
        recordsAcked.addAndGet(records);
        return nextOffset.getAndAdd(records);
    }

    long nextProducerId() {
        return nextProducerId.getAndIncrement();
    }

    void answeredPartitions(long n) {
        partitionsAnswered.addAndGet(n);
    }

    void count(int node, short apiKey) {
        AtomicLongArray counts = requestCounts[node];
        counts.incrementAndGet(apiKey >= 0 && apiKey < API_KEY_SLOTS - 1 ? apiKey : API_KEY_SLOTS - 1);
    }

    // ------------------------------------------------------------------ internals

    private TopicState existing(String topic) {
        TopicState t = byName.get(topic);
        if (t == null) {
            throw new IllegalArgumentException("no such topic: " + topic);
        }
        return t;
    }

    /** Guarded by changeLock. */
    private TopicState replace(TopicState t) {
        byName.put(t.name(), t);
        byId.put(t.id(), t);
        return t;
    }

    private void accept(int node) {
        ServerSocket listener = listeners[node];
        while (!closed) {
            Socket s;
            try {
                s = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("fake broker {} node {}: accept failed: {}", clusterId, node, e.toString());
                }
                return;
            }
            try {
                s.setTcpNoDelay(true);
            } catch (SocketException e) {
                closeQuietly(s);
                continue;
            }
            sockets.add(s);
            Thread t = new Thread(() -> serve(node, s), "fakebroker-" + node + "-conn-"
                    + connectionIds.incrementAndGet());
            t.setDaemon(true);
            connectionThreads.add(t);
            t.start();
            if (closed) {
                closeQuietly(s);
            }
        }
    }

    private void serve(int node, Socket s) {
        try {
            answers.serve(node, s);
        } catch (IOException e) {
            if (!closed) {
                LOG.debug("fake broker {} node {}: connection ended: {}", clusterId, node, e.toString());
            }
        } catch (RuntimeException e) {
            LOG.warn("fake broker {} node {}: closing a connection after {}", clusterId, node, e.toString(), e);
        } finally {
            closeQuietly(s);
            sockets.remove(s);
            connectionThreads.remove(Thread.currentThread());
        }
    }

    private void closeListeners() {
        for (ServerSocket s : listeners) {
            if (s != null) {
                try {
                    s.close();
                } catch (IOException e) {
                    LOG.debug("closing a listener: {}", e.toString());
                }
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            LOG.debug("closing a connection: {}", e.toString());
        }
    }

    private static int maxApiKey() {
        int max = 0;
        for (ApiKeys k : ApiKeys.values()) {
            max = Math.max(max, k.id);
        }
        return max;
    }
}
