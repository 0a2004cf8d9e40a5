package dev.kmeta.producer.internal.network;

import dev.kmeta.producer.internal.abi.KafkaClientsAbi.SenderRef;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.internal.Handles;
import org.apache.kafka.clients.Metadata;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What the producer's network thread does on the route, owned in one place (the send's half is
 * {@link dev.kmeta.producer.internal.send.SendProtocol}): which thread it is, its first request, the Metadata updates
 * its Sender and NetworkClient ask for, the KIP-951 leader hints of its produce answers, and how kmeta's answers wake
 * it. {@link dev.kmeta.producer.internal.ProducerBridge} dispatches kafka-clients' calls here.
 *
 * <h2>The network thread's calls, in the order its Sender makes them</h2>
 * <ul>
 *   <li>{@link #loopStarts()} - the Sender's {@code fetchMetadataSnapshot()}, the first call of each loop that sends:
 *   opens the ready check (the topics it {@link #add}s next have no leader in its view) and runs the housekeeping a
 *   new snapshot posted ({@link Recreations}, {@link LeaderlessPartitions}).</li>
 *   <li>{@link #add}, then {@link #requestUpdate} - the ready check's unknown-leader topics: kmeta refreshes those
 *   topics only. A send made on this thread (a callback's) begins with the interceptor's {@link #onSend}, which ends
 *   the ready check, so its topic is never taken for the Sender's.</li>
 *   <li>{@link #timeToNextUpdate} - the NetworkClient's poll: a query, changing nothing. The thread sleeps in its
 *   selector until kmeta publishes the version it waits for: kmeta's sender thread runs {@link #wakeIfPassed} and
 *   wakes it ({@code Sender.wakeup()}), as a stock producer's own Metadata answer wakes its poll.</li>
 * </ul>
 *
 * <h2>What wakes each wait</h2>
 * <ul>
 *   <li>The first {@code fetch()} before kmeta's first answer ({@link #awaitFirstAnswer}): kmeta's first version, the
 *   bridge's close. KafkaProducer's own {@code close()} gives no signal before it joins this thread (it only flips its
 *   Sender's {@code running} flag and wakes its selector), so the wait also looks at that flag every
 *   {@value #CLOSE_LOOK_MS} ms of the system's clock - the route's one timed look, and not a rule: a test's fake time
 *   must not stop a thread no test drives.</li>
 *   <li>The first-request steer ({@link FirstRequestTarget}): a connection outcome kmeta records, a new version, its
 *   bound on the instance's ticker.</li>
 *   <li>An update asked for: kmeta's publishing a version past it ({@link #wakeIfPassed}); one published between the
 *   ask and the thread's poll is seen by {@link #requestUpdate} itself, which wakes the poll that follows.</li>
 * </ul>
 *
 * <p>Thread-safe where it says so: the counters and {@link #wakeIfPassed} (kmeta's thread) are; the ready-check
 * fields are the network thread's alone.
 */
@SuppressKafkaInternalApiUsage("answers the Sender's ProducerMetadata calls (Metadata.LeaderIdAndEpoch)")
public final class NetworkThreadProtocol {
    /**
     * How often the network thread waits for kmeta's answers by looking when its Sender could not be read to be woken
     * ({@link #attach} got null): the fallback, never the route's normal path.
     */
    public static final long UNWAKEABLE_LOOK_MS = 10;
    /** How often the wait for kmeta's first answer looks at whether its producer began closing (no event tells). */
    static final long CLOSE_LOOK_MS = 10;
    /** Past this many unknown-leader topics one full refresh is asked for instead of one targeted refresh each. */
    static final int MAX_UNKNOWN_LEADER_TOPICS = 64;
    private static final int NOTHING_WANTED = Integer.MIN_VALUE;
    /** The name KafkaProducer gives its network thread, before {@link #attach} tells which thread it is. */
    private static final String NETWORK_THREAD_PREFIX = "kafka-producer-network-thread | ";

    private final KafkaMetadata metadata;
    private final BooleanSupplier closed;
    private final Runnable housekeeping;
    /** The name of the producer's network thread, or null when its client id is not known yet. */
    private final String networkThreadName;
    private final FirstRequestTarget firstRequest;
    /** The producer's network thread and Sender, once the producer is made ({@link #attach}); null before. */
    private volatile SenderRef sender;
    /** The thread of the Sender's calls, learned at its first loop (when neither attach nor the name tells). */
    private volatile Thread seenLooping;
    /**
     * The kmeta version the network thread waits to see passed, or {@link #NOTHING_WANTED}: set on the network thread
     * ({@link #requestUpdate}, a newer leader hint), cleared by whoever sees it passed first - kmeta's thread
     * ({@link #wakeIfPassed}, which then wakes the network thread) or {@link #want} itself.
     */
    private final AtomicInteger wantedVersion = new AtomicInteger(NOTHING_WANTED);
    /** Removes {@link #wakeIfPassed} from kmeta's version listeners; set by {@link #attach}. */
    private volatile Runnable stopListening;
    /** The ready check's topics without a leader (added between {@link #loopStarts} and {@link #requestUpdate}). */
    private final Set<String> unknownLeaderTopics = new LinkedHashSet<>();
    private boolean unknownLeaderOverflow;
    /** True from {@link #loopStarts} to the requestUpdate, or a send on this thread, that ends the ready check. */
    private boolean readyCheck;
    private final LongAdder firstAnswerWaits = new LongAdder();
    private final LongAdder wakeups = new LongAdder();
    private final LongAdder updateRequests = new LongAdder();
    private final LongAdder targetedUpdates = new LongAdder();
    private final LongAdder leaderHints = new LongAdder();
    private final LongAdder staleLeaderHints = new LongAdder();

    /**
     * @param closed       true once the bridge closed
     * @param housekeeping what a new loop runs on this thread (the re-created and leaderless partitions' queues)
     * @param clientId     the producer's client id when the user set one (its network thread's name), else null
     */
    public NetworkThreadProtocol(KafkaMetadata metadata, BooleanSupplier closed, Runnable housekeeping,
                                 String clientId) {
        this.metadata = metadata;
        this.closed = closed;
        this.housekeeping = housekeeping;
        this.networkThreadName = clientId == null || clientId.isEmpty() ? null : NETWORK_THREAD_PREFIX + clientId;
        this.firstRequest = new FirstRequestTarget(metadata);
    }

    // ------------------------------------------------------------ identity and wake-ups

    /**
     * The producer is made: its network thread and Sender (null when they cannot be read). With a Sender to wake,
     * kmeta's new versions wake the network thread when it waits for one.
     */
    public void attach(SenderRef ref) {
        sender = ref;
        if (ref != null && ref.wakeup() != null) {
            Runnable stop = Handles.onNewVersion(metadata, this::wakeIfPassed);
            stopListening = stop;
            if (closed.getAsBoolean()) { // closed meanwhile: close() may have missed it
                stop.run();
            }
        }
    }

    /**
     * True on the producer's network thread: the one {@link #attach} named; before it, the thread whose name
     * KafkaProducer gives its network thread, or the one that runs the Sender's loop.
     */
    public boolean isCurrent() {
        SenderRef ref = sender;
        Thread t = Thread.currentThread();
        if (ref != null) {
            return ref.thread() == t;
        }
        return t == seenLooping || networkThreadName != null && networkThreadName.equals(t.getName());
    }

    /**
     * Wakes the network thread once if the version it waits for has passed (or the bridge closed): run by kmeta's
     * sender thread after each new version (the listener {@link #attach} registers), and by {@link #want} for a
     * version published before the wish was written. Whoever clears the wish first wakes it.
     */
    private void wakeIfPassed() {
        int wanted = wantedVersion.get();
        if (wanted != NOTHING_WANTED && (closed.getAsBoolean() || metadata.fetch().version() > wanted)
                && wantedVersion.compareAndSet(wanted, NOTHING_WANTED)) {
            wake();
        }
    }

    private void wake() {
        SenderRef ref = sender;
        if (ref != null && ref.wakeup() != null) {
            wakeups.increment();
            ref.wakeup().run();
        }
    }

    /** True when kmeta's answers can wake the network thread (its Sender was read). */
    private boolean wakeable() {
        SenderRef ref = sender;
        return ref != null && ref.wakeup() != null && stopListening != null;
    }

    /**
     * The network thread waits to see {@code version} passed (the larger of what it waits for). A version published
     * before this (kmeta's listener ran before the wish was written) is seen here: the thread's next poll is woken.
     */
    private void want(int version) {
        wantedVersion.accumulateAndGet(version, (w, v) -> w == NOTHING_WANTED ? v : Math.max(w, v));
        wakeIfPassed();
    }

    // ------------------------------------------------------------ the first request

    /**
     * The network thread's {@code fetch()} (the caller checked {@link #isCurrent}): its producer's view; before kmeta's
     * first answer it waits for it, then names only the pending sends' leaders that accepted kmeta's probe
     * ({@link FirstRequestTarget}).
     */
    public Cluster fetch(Supplier<Cluster> producerView) {
        if (metadata.fetch().nodes().isEmpty()) {
            awaitFirstAnswer();
            return firstRequest.steer(producerView.get(), this::producerStopping);
        }
        return producerView.get();
    }

    /**
     * Before kmeta's first answer (no broker known) the network thread has nothing to send and must not connect
     * anywhere on its own: its first {@code fetch()} (the Sender's {@code leastLoadedNode}, for an idempotent
     * producer's InitProducerId) would otherwise connect to the bootstrap addresses kmeta's thread is already trying,
     * and log every failure a second time. Woken by kmeta's first version or the bridge's close; looks at its producer
     * every {@value #CLOSE_LOOK_MS} ms (see the class doc).
     */
    private void awaitFirstAnswer() {
        firstAnswerWaits.increment();
        while (!closed.getAsBoolean()) {
            dev.kmeta.cluster.Cluster now = metadata.fetch();
            if (!now.nodes().isEmpty() || producerStopping()
                    || Thread.currentThread().isInterrupted()) { // an interrupt is KafkaProducer's to see
                return;
            }
            Handles.parkUntilNewVersion(metadata, now.version(), TimeUnit.MILLISECONDS.toNanos(CLOSE_LOOK_MS));
        }
    }

    /** True once the bridge closed or its producer began closing (its Sender stops running). */
    private boolean producerStopping() {
        SenderRef ref = sender;
        return closed.getAsBoolean() || ref != null && !ref.running().getAsBoolean();
    }

    // ------------------------------------------------------------ the Sender's loop

    /** The Sender's {@code fetchMetadataSnapshot()}: a loop that sends begins (its ready check follows). */
    public void loopStarts() {
        if (sender == null && seenLooping != Thread.currentThread()) {
            seenLooping = Thread.currentThread();
        }
        endReadyCheck();
        readyCheck = true;
        housekeeping.run();
    }

    /** An {@code add(topic)} on the network thread: in the ready check, a topic without a leader in its view. */
    public void add(String topic) {
        if (!readyCheck) {
            return;
        }
        if (unknownLeaderTopics.size() < MAX_UNKNOWN_LEADER_TOPICS) {
            unknownLeaderTopics.add(topic);
        } else {
            unknownLeaderOverflow = true;
        }
    }

    /** The interceptor's {@code onSend} on the network thread (a callback's send): not the Sender's ready check. */
    public void onSend() {
        endReadyCheck();
    }

    private void endReadyCheck() {
        readyCheck = false;
        unknownLeaderOverflow = false;
        unknownLeaderTopics.clear();
    }

    /**
     * {@code requestUpdate()} on the network thread (the Sender's unknown leaders or retriable errors, the
     * NetworkClient's disconnects): targeted at the ready check's unknown-leader topics when it named some, else
     * kmeta's full refresh; then the thread waits for kmeta's answer, which wakes it.
     */
    public int requestUpdate() {
        updateRequests.increment();
        boolean targeted = readyCheck && !unknownLeaderTopics.isEmpty() && !unknownLeaderOverflow;
        int version;
        if (targeted) {
            version = metadata.fetch().version(); // read before asking: the answer may land before this returns
            for (String topic : unknownLeaderTopics) {
                metadata.invalidate(topic, 0);
            }
            targetedUpdates.increment();
        } else {
            version = metadata.requestUpdate();
        }
        endReadyCheck();
        want(version);
        return version;
    }

    /** {@code requestUpdate()} from another thread: kmeta's full refresh, and this thread's wake when it lands. */
    public int requestUpdateElsewhere() {
        updateRequests.increment();
        int version = metadata.requestUpdate();
        want(version);
        return version;
    }

    /**
     * {@code timeToNextUpdate(now)}: a query. Never 0, so the producer's NetworkClient never sends a Metadata
     * request; kmeta's answer wakes the thread when it waits for one. Only when its Sender could not be read does the
     * thread look every {@value #UNWAKEABLE_LOOK_MS} ms while it waits.
     */
    public long timeToNextUpdate() {
        int wanted = wantedVersion.get();
        if (closed.getAsBoolean() || wanted == NOTHING_WANTED || wakeable() || metadata.fetch().version() > wanted) {
            return Long.MAX_VALUE;
        }
        return UNWAKEABLE_LOOK_MS;
    }

    /**
     * KIP-951: the leaders a produce answer named feed kmeta's {@code onLeaderHint} (a hint without a leader asks
     * kmeta to refresh the partition). A hint whose epoch kmeta's snapshot already has is dropped here, as kmeta would
     * drop it, without waking kmeta's thread; only a newer one is waited for.
     */
    public Set<TopicPartition> updatePartitionLeadership(Map<TopicPartition, Metadata.LeaderIdAndEpoch> leaders,
                                                         List<Node> nodes) {
        dev.kmeta.cluster.Cluster before = metadata.fetch(); // before posting: kmeta may apply a hint meanwhile
        List<TopicPartition> hinted = new ArrayList<>(leaders.size());
        for (Map.Entry<TopicPartition, Metadata.LeaderIdAndEpoch> e : leaders.entrySet()) {
            TopicPartition tp = e.getKey();
            Metadata.LeaderIdAndEpoch hint = e.getValue();
            if (hint.leaderId.isEmpty() || hint.epoch.isEmpty()) {
                metadata.invalidate(tp.topic(), tp.partition()); // the Sender's requestUpdate before it is waited for
            } else {
                leaderHints.increment();
                if (isStale(before, tp, hint.epoch.get())) {
                    staleLeaderHints.increment();
                    continue;
                }
                int leader = hint.leaderId.get();
                metadata.onLeaderHint(tp.topic(), tp.partition(), leader, hint.epoch.get(), endpoint(leader, nodes));
                hinted.add(tp);
            }
        }
        if (!hinted.isEmpty()) {
            want(before.version());
        }
        return Set.copyOf(hinted);
    }

    /** kmeta's rule for a stale hint: the partition is known with an epoch at least the hint's. */
    private static boolean isStale(dev.kmeta.cluster.Cluster snapshot, TopicPartition tp, int epoch) {
        dev.kmeta.cluster.PartitionMetadata p = snapshot.partition(tp.topic(), tp.partition());
        return p != null && p.hasLeaderEpochAtLeast(epoch);
    }

    private static dev.kmeta.cluster.Node endpoint(int id, List<Node> nodes) {
        for (Node n : nodes) {
            if (n.id() == id) {
                return new dev.kmeta.cluster.Node(n.id(), n.host(), n.port(), n.rack());
            }
        }
        return null; // kmeta takes the endpoint from its snapshot
    }

    /** The bridge closes: kmeta's thread drops its reference to this producer. */
    public void close() {
        Runnable stop = stopListening;
        if (stop != null) {
            stop.run();
        }
    }

    // ------------------------------------------------------------ counters (any thread)

    public long firstAnswerWaits() {
        return firstAnswerWaits.sum();
    }

    public long firstRequestsToLeader() {
        return firstRequest.steered();
    }

    public long wakeups() {
        return wakeups.sum();
    }

    public long updateRequests() {
        return updateRequests.sum();
    }

    public long targetedUpdates() {
        return targetedUpdates.sum();
    }

    public long leaderHints() {
        return leaderHints.sum();
    }

    public long staleLeaderHints() {
        return staleLeaderHints.sum();
    }
}
