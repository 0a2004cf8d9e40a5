package dev.kmeta.producer.internal;

import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.producer.RouteStats.Counter;
import dev.kmeta.producer.internal.abi.KafkaClientsAbi;
import dev.kmeta.producer.internal.abi.KafkaClientsAbi.SenderRef;
import dev.kmeta.producer.internal.network.NetworkThreadProtocol;
import dev.kmeta.producer.internal.network.Recreations;
import dev.kmeta.producer.internal.send.ConfirmedTopics;
import dev.kmeta.producer.internal.send.LeaderHold;
import dev.kmeta.producer.internal.send.SendProtocol;
import dev.kmeta.producer.internal.stats.RouteCounts;
import dev.kmeta.producer.internal.stats.RouteInstances;
import dev.kmeta.producer.internal.view.ProducerViews;
import dev.kmeta.producer.internal.view.TopicLook;
import dev.kmeta.producer.internal.view.ViewStats;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.internal.Handles;
import org.apache.kafka.clients.Metadata;
import org.apache.kafka.clients.MetadataSnapshot;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.annotation.SuppressKafkaInternalApiUsage;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.time.Duration;

/**
 * What a {@code ProducerMetadata} stand-in does, for every kafka-clients ABI: the thin per-ABI subclass
 * ({@link ProducerMetadata44}) turns each call KafkaProducer, its Sender, its TransactionManager and its
 * NetworkClient make into one call here, and this class answers it from one kmeta {@link KafkaMetadata} handle.
 * Only kafka-clients types that 4.0-4.4 share appear in its signatures.
 *
 * <ul>
 *   <li>The send path stays kmeta's: {@link #add(String, long)} subscribes (allocation-free on a hit), {@link #fetch()}
 *   is a Kafka {@code Cluster} view scoped to what the calling thread asks ({@link ProducerViews}: the send's topic on
 *   a sending thread, this producer's topics on its network thread; never the whole snapshot) - except for the first call of a send whose leaders never
 *   accepted a connection ({@link LeaderHold}): that one sees the topic absent, and the {@code add(topic)} KafkaProducer
 *   makes right after it holds the send until a leader can be reached, or throws kmeta's diagnosed timeout at
 *   {@code max.block.ms} (outside the wait whose TimeoutException KafkaProducer replaces).</li>
 *   <li>{@link #awaitUpdate} takes no lock and waits with kmeta's targeted wait on the topic named by the same
 *   thread's preceding {@link #requestUpdateForTopic}; it gives up {@link #giveUpEarlyMs()} before the producer's
 *   budget runs out and <em>returns</em>, so that {@link #maybeThrowExceptionForTopic} can throw kmeta's diagnosed
 *   {@code KafkaMetadataTimeoutException} (KafkaProducer replaces a TimeoutException thrown by awaitUpdate with a
 *   fixed message of its own).</li>
 *   <li>The producer's own NetworkClient never sends a Metadata request: {@link #timeToNextUpdate()} is never 0. Nor
 *   does it connect anywhere before kmeta's first answer: its first {@link #fetch()} waits for it.</li>
 * </ul>
 *
 * <p>A dispatcher: what a sending thread's send is doing (its topic and partition, a hold, kmeta's timeout waiting
 * to be thrown) is {@link SendProtocol}'s, kept per thread, as KafkaProducer calls these methods in sequence on the
 * sending thread; what the producer's network thread does (its first request, the updates it asks for, the leader
 * hints, how kmeta's answers wake it) is {@link NetworkThreadProtocol}'s; this class routes each call to the one of
 * the calling thread. Thread-safe; no method takes a lock (the views' lazy parts excepted, built once per snapshot,
 * off the send path).
 */
@SuppressKafkaInternalApiUsage("answers KafkaProducer's and Sender's ProducerMetadata calls (MetadataSnapshot, "
        + "Metadata.LeaderIdAndEpoch, Errors) for every stand-in")
public final class ProducerBridge implements RouteCounts {
    private static final Logger log = LoggerFactory.getLogger(ProducerBridge.class);
    private final KafkaMetadata metadata;
    private final ProducerViews views;
    private final long giveUpEarlyMs;
    private final String logPrefix;
    /**
     * Set once, by {@link #close()}. A field of the bridge, not an AtomicBoolean beside it: every send reads it, and
     * one object is one cache line less to miss when the caches went cold between sends.
     */
    private volatile boolean closed;
    /** Claimed by the one {@link #close()} that runs (never read on the send path). */
    private final AtomicBoolean closing = new AtomicBoolean();
    private final LeaderHold holds;
    /** What each sending thread's send is doing: every per-send state ({@link SendProtocol}). */
    private final SendProtocol protocol;
    /** What the producer's network thread does ({@link NetworkThreadProtocol}). */
    private final NetworkThreadProtocol network;
    /**
     * The producer's network thread once {@link #attach} read it (null before, or when it could not be read): every
     * call asks whether it runs there, and a field of the bridge is one object fewer to miss than the network
     * protocol's record of it when the caches went cold between sends.
     */
    private volatile Thread networkThread;
    /** kmeta's current snapshot, read from the instance's manager directly ({@link Handles#snapshots}). */
    private final Supplier<dev.kmeta.cluster.Cluster> snapshots;
    /** The network thread's view of this producer's topics (made once: fetch() allocates nothing). */
    private final java.util.function.Supplier<Cluster> producerView;
    /** The topics this producer saw deleted and re-created ({@link Recreations}). */
    final Recreations recreations;
    /** The topics this producer saw described since it first asked, for requests never rebuilt. */
    private final ConfirmedTopics confirmed;

    ProducerBridge(KafkaMetadata metadata, long metadataIdleMs, long giveUpEarlyMs, long maxBlockMs,
                   String logPrefix) {
        this(metadata, metadataIdleMs, giveUpEarlyMs, maxBlockMs, logPrefix, null);
    }

    ProducerBridge(KafkaMetadata metadata, long metadataIdleMs, long giveUpEarlyMs, long maxBlockMs,
                   String logPrefix, String clientId) {
        this.metadata = metadata;
        this.snapshots = Handles.snapshots(metadata);
        this.views = new ProducerViews(metadata, metadataIdleMs);
        this.giveUpEarlyMs = giveUpEarlyMs;
        this.recreations = new Recreations(metadata, logPrefix);
        this.network = new NetworkThreadProtocol(metadata, this::isClosed, recreations::onNetworkThread, clientId);
        this.holds = new LeaderHold(metadata, maxBlockMs, network::isCurrent);
        this.producerView = () -> views.currentCluster();
        this.confirmed = new ConfirmedTopics(metadata, metadataIdleMs, views::firstUsedMs);
        this.protocol = new SendProtocol(new Waits(metadata, recreations, confirmed), holds, giveUpEarlyMs,
                metadata.ticker());
        this.logPrefix = logPrefix;
    }

    /** The kmeta handle this producer holds. */
    public KafkaMetadata metadata() {
        return metadata;
    }

    /** This producer's Kafka views (scoped per send topic and per producer; see {@link ProducerViews}). */
    public ProducerViews views() {
        return views;
    }

    /** How long before the producer's budget ends awaitUpdate gives up and lets kmeta's diagnosis through. */
    public long giveUpEarlyMs() {
        return giveUpEarlyMs;
    }

    /** The log prefix of the producer ({@code [Producer clientId=...] }). */
    String logPrefix() {
        return logPrefix;
    }

    // ------------------------------------------------------------ the send path (application threads)

    /**
     * {@code fetch()}: on the producer's network thread, the view of this producer's topics; on any other thread, the
     * view of the topic this thread's send is about (the interceptor's onSend, or the last requestUpdateForTopic, named
     * it) - never a view of the whole snapshot ({@link ProducerViews}). Allocation-free on a hit.
     */
    public Cluster fetch() {
        if (protocol.fetchHidesTopic()) { // or throws the kept timeout: fetch() comes right after awaitUpdate
            return Cluster.empty(); // waitOnMetadata's first look: the topic is not sendable yet
        }
        if (onNetworkThread()) {
            return network.fetch(producerView);
        }
        Cluster view = views.forSend(protocol.viewTopic());
        return protocol.hidesArrivedTopic() ? Cluster.empty() : view; // the verdict read after the view
    }

    /** The producer is made: its network thread and Sender (null when they cannot be read). */
    void attach(SenderRef ref) {
        network.attach(ref);
        if (ref != null && ref.thread() != null) {
            networkThread = ref.thread();
        }
    }

    /** True on the producer's network thread ({@link NetworkThreadProtocol#isCurrent}, from the bridge once known). */
    private boolean onNetworkThread() {
        Thread t = networkThread;
        return t != null ? t == Thread.currentThread() : network.isCurrent();
    }

    /** How many times kmeta's answers woke the producer's network thread (it waited for them). */
    public long networkThreadWakeups() {
        return network.wakeups();
    }

    /**
     * How many times the producer's first request (an idempotent producer's InitProducerId) was steered to a leader
     * of its pending sends that accepted kmeta's connection ({@link FirstRequestTarget}): 0 or 1.
     */
    public long firstRequestsToLeader() {
        return network.firstRequestsToLeader();
    }

    /** How many times the producer's network thread waited for kmeta's first answer (at most once, normally). */
    public long firstAnswerWaits() {
        return network.firstAnswerWaits();
    }

    /**
     * {@code add(topic, now)}: kmeta's subscribe, allocation-free when the topic is known; for a send whose first
     * fetch() hid its topic, the {@link LeaderHold} (until {@code max.block.ms} from the send).
     *
     * @throws TimeoutException  kmeta's diagnosed timeout of a held send (ADVERTISED_LISTENER_UNREACHABLE)
     * @throws InterruptException if the thread is interrupted while held
     */
    public void add(String topic, long nowMs) {
        if (closed) {
            return;
        }
        if (use(topic, nowMs) != ProducerViews.Added.FRESH) { // at most once a second per topic, as kmeta's stamp
            metadata.subscribe(topic);
        }
        if (onNetworkThread()) {
            network.add(topic); // in the Sender's ready check: a topic whose leader its view lacks
        }
        protocol.add(topic);
    }

    /**
     * {@code add(topics, now)} (4.4, before sendOffsetsToTransaction, whose TxnOffsetCommit is built once from
     * {@link #topicIds()} and never rebuilt): subscribes every topic; empty when all are known and this producer saw
     * each described since it first asked ({@link ConfirmedTopics}); else the version the following awaitUpdate waits
     * past - until kmeta's answer about the unconfirmed ones (asked for here), or a version wait for a missing one, as
     * kafka-clients does.
     */
    public OptionalInt add(Collection<String> topics, long nowMs) {
        int version = metadata.fetch().version();
        boolean missing = false;
        List<String> known = new ArrayList<>(topics.size());
        for (String topic : topics) {
            if (!closed) {
                use(topic, nowMs);
                if (metadata.subscribe(topic)) {
                    known.add(topic);
                } else {
                    missing = true;
                }
            }
        }
        List<String> unconfirmed = known.isEmpty() ? List.of() : confirmed.unconfirmed(known);
        if (!unconfirmed.isEmpty()) {
            protocol.confirmWait(unconfirmed);
        } else if (missing) {
            protocol.versionWait();
        } else {
            return OptionalInt.empty();
        }
        return OptionalInt.of(version);
    }

    /**
     * The producer uses {@code topic}: its network-thread view's scope; at the topic's first use, the network thread's
     * watch over it (its incarnation for {@link Recreations}, its leaderless partitions) - once per use, not per send.
     *
     * @return what {@link ProducerViews#add} says
     */
    private ProducerViews.Added use(String topic, long nowMs) {
        ProducerViews.Added added = views.add(topic, nowMs);
        if (added == ProducerViews.Added.JOINED) {
            recreations.firstUse(topic);
        }
        return added;
    }

    /** How many topic refreshes this producer asked for to confirm topics before a request built once (issue 37). */
    public long confirmationRefreshes() {
        return confirmed.refreshesAsked();
    }

    /** {@code requestUpdateForTopic(topic)}: notes the topic this thread waits for; kmeta asks for it on its own. */
    public int requestUpdateForTopic(String topic) {
        protocol.requestUpdateForTopic(topic);
        return metadata.fetch().version();
    }

    /**
     * {@code awaitUpdate(version, timer)}: kmeta's targeted wait for the topic of this thread's preceding
     * {@link #requestUpdateForTopic}, until {@link #giveUpEarlyMs()} before {@code timeoutMs} from that call runs out
     * (KafkaProducer computed {@code timeoutMs} just before it). Returns normally when
     * the topic arrived, or when kmeta timed out (its exception then waits for {@link #maybeThrowExceptionForTopic});
     * a second call at the same version with the topic known means the record's partition is beyond the count: it
     * waits for the count to grow. Without a preceding requestUpdateForTopic (4.4's add(topics)): a version wait.
     *
     * @throws InterruptedException if the thread is interrupted (KafkaProducer throws InterruptException)
     * @throws KafkaException       a topic refusal or a fatal error (Kafka's types, kmeta's message)
     */
    public void awaitUpdate(int version, long timeoutMs) throws InterruptedException {
        protocol.awaitUpdate(version, timeoutMs);
    }

    /** Throws kmeta's timeout for {@code topic} kept by this thread's last awaitUpdate, once. */
    public void maybeThrowExceptionForTopic(String topic) {
        TimeoutException e = protocol.takeTimeout(topic);
        if (e != null) {
            throw e;
        }
    }

    /**
     * {@code getError(topic)}: the Kafka error code closest to kmeta's diagnosis of this thread's last timeout for
     * the topic, or null; the same on two calls in a row (KafkaProducer's fallback message reads it twice).
     */
    public Errors getError(String topic) {
        TimeoutException e = protocol.peekTimeout(topic);
        if (e == null) {
            return null;
        }
        return Diagnosis.from(e).map(d -> DiagnosingInterceptor.errorFor(d.cause())).orElse(null);
    }

    /**
     * The interceptor saw a record about to be sent on this thread (KafkaProducer's waitOnMetadata comes next):
     * arms its first fetch() when the record's leaders never accepted a connection ({@link LeaderHold}), except on
     * the producer's network thread. Allocation-free.
     */
    void onSend(String topic, Integer partition) {
        onSend(topic, partition, snapshots.get());
    }

    /**
     * The interceptor's {@code onSend}: a record to a topic re-created with fewer partitions gets a partition of the
     * new topic ({@link Recreations}, issue 27), then {@link #onSend(String, Integer)} for the record it returns - both
     * on one read of kmeta's snapshot.
     */
    <K, V> ProducerRecord<K, V> onSend(ProducerRecord<K, V> record) {
        dev.kmeta.cluster.Cluster snapshot = snapshots.get();
        ProducerRecord<K, V> r = recreations.onSend(record, snapshot);
        onSend(r.topic(), r.partition(), snapshot);
        return r;
    }

    private void onSend(String topic, Integer partition, dev.kmeta.cluster.Cluster snapshot) {
        if (onNetworkThread()) {
            network.onSend();
        }
        // the producer's topic map, not kmeta's index: one object per topic and version (TopicLook), which fetch()
        // reads next; a topic whose leaders a send on this version saw proven needs no verdict (proofs never go back)
        TopicLook look = views.look(topic, snapshot);
        TopicMetadata entry = look != null ? look.entry() : snapshot.topic(topic);
        boolean proven = look != null && look.isProven();
        protocol.onSend(topic, partition == null ? MetadataClient.ANY_PARTITION : partition, !closed && !proven,
                snapshot, entry);
        if (!proven && look != null && entry != null && LeaderHold.proven(snapshot, entry)) {
            look.proven();
        }
    }

    /** The interceptor's onAcknowledgement with an exception: on a sending thread, its send failed in send(). */
    void sendFailed() {
        if (!onNetworkThread()) {
            protocol.sendFailed();
        }
    }

    /** kmeta's timeout this thread's last awaitUpdate kept for {@code topic} and KafkaProducer did not throw. */
    TimeoutException keptTimeout(String topic) {
        return protocol.takeTimeout(topic);
    }

    // ------------------------------------------------------------ the producer's network thread

    /** {@code fetchMetadataSnapshot()}: this producer's topics, rebuilt only when one of them or the brokers changed. */
    public MetadataSnapshot fetchMetadataSnapshot() {
        if (onNetworkThread()) {
            network.loopStarts(); // the Sender's loop: its ready check follows
        }
        return views.currentSnapshot();
    }

    /** {@code topicIds()}: of this producer's topics. */
    public Map<String, Uuid> topicIds() {
        return views.currentTopicIds();
    }

    /** {@code topicNames()}: of this producer's topics. */
    public Map<Uuid, String> topicNames() {
        return views.currentTopicNames();
    }

    /**
     * {@code requestUpdate(...)} from the Sender (unknown leaders, retriable errors) or the NetworkClient (a
     * disconnect). When the Sender just named the topics whose leader its view lacks (it adds each right before), kmeta
     * refreshes those topics only - a Metadata request of their partitions, where kafka-clients asks for every topic
     * of the producer (10,000 partitions to learn one new topic's leader); otherwise kmeta's full refresh. Either
     * folds any number of calls into one request and is bounded by kmeta's backoff. The network thread sleeps until
     * kmeta publishes a newer version, which wakes it ({@link #onNewVersion}).
     */
    public int requestUpdate() {
        if (closed) {
            return metadata.fetch().version();
        }
        try {
            return onNetworkThread() ? network.requestUpdate() : network.requestUpdateElsewhere();
        } catch (KafkaException e) {
            log.debug("{}metadata update request refused: {}", logPrefix, e.getMessage());
            return metadata.fetch().version();
        }
    }

    /** How many times the producer's Sender or NetworkClient asked for a metadata update. */
    public long updateRequests() {
        return network.updateRequests();
    }

    /** How many of {@link #updateRequests()} asked kmeta for the Sender's unknown-leader topics only. */
    public long targetedUpdates() {
        return network.targetedUpdates();
    }

    /** How many of this producer's sends were held in {@code send()} for their leader ({@link LeaderHold}). */
    public long leaderHolds() {
        return holds.held();
    }

    /** How many KIP-951 leader hints (a leader and an epoch) this producer's produce answers carried. */
    public long leaderHints() {
        return network.leaderHints();
    }

    /** How many of {@link #leaderHints()} were older than kmeta's snapshot, so dropped before they reached kmeta. */
    public long staleLeaderHints() {
        return network.staleLeaderHints();
    }

    /**
     * Adds this producer's route counts to {@code out} (indexed by {@code RouteStats.Counter}'s ordinals): what
     * {@code RouteStats} sums over an instance's producers. Any thread.
     */
    @Override
    public void addCountsTo(long[] out) {
        ViewStats v = views.stats();
        add(out, Counter.PRODUCER_VIEWS_BUILT, v.producerViewsBuilt());
        add(out, Counter.PRODUCER_VIEWS_SHARED, v.producerViewsShared());
        add(out, Counter.PRODUCER_VIEWS_REUSED, v.producerViewsReused());
        add(out, Counter.TOPIC_VIEWS_BUILT, v.topicViewsBuilt());
        add(out, Counter.SENDS_HELD, holds.held());
        add(out, Counter.HOLDS_RELEASED, holds.released());
        add(out, Counter.HOLDS_TIMED_OUT, holds.timedOut());
        add(out, Counter.FIRST_REQUESTS_STEERED, network.firstRequestsToLeader());
        add(out, Counter.FIRST_ANSWER_WAITS, network.firstAnswerWaits());
        add(out, Counter.UPDATE_REQUESTS, network.updateRequests());
        add(out, Counter.TARGETED_UPDATES, network.targetedUpdates());
        add(out, Counter.NETWORK_THREAD_WAKEUPS, network.wakeups());
        add(out, Counter.LEADER_HINTS, network.leaderHints());
        add(out, Counter.STALE_LEADER_HINTS, network.staleLeaderHints());
        add(out, Counter.RECREATIONS_SEEN, recreations.recreationsSeen());
        add(out, Counter.CONFIRMATION_REFRESHES, confirmed.refreshesAsked());
    }

    private static void add(long[] out, Counter c, long value) {
        out[c.ordinal()] += value;
    }

    /** {@code timeToNextUpdate(now)}: a query ({@link NetworkThreadProtocol#timeToNextUpdate}). */
    public long timeToNextUpdate() {
        return network.timeToNextUpdate();
    }

    /** KIP-951 leader hints of a produce answer ({@link NetworkThreadProtocol#updatePartitionLeadership}). */
    public Set<TopicPartition> updatePartitionLeadership(Map<TopicPartition, Metadata.LeaderIdAndEpoch> leaders,
                                                         List<Node> nodes) {
        if (closed || leaders.isEmpty()) {
            return Set.of();
        }
        return network.updatePartitionLeadership(leaders, nodes);
    }

    /**
     * {@code lastSuccessfulUpdate()} (the producer's metadata-age metric): now minus kmeta's metadata age. Now on
     * the producer's own clock ({@code KafkaClientsAbi.producerNowMs()}): KafkaProducer compares it with that clock's.
     */
    public long lastSuccessfulUpdate() {
        return KafkaClientsAbi.producerNowMs() - metadata.metadataAgeMs();
    }

    /** {@code updateVersion()}: kmeta's snapshot version. */
    public int updateVersion() {
        return metadata.fetch().version();
    }

    /** {@code isClosed()}. */
    @Override
    public boolean isClosed() {
        return closed;
    }

    /**
     * {@code close()} (the producer's NetworkClient closes its metadata when the producer closes): releases this
     * producer's kmeta handle; the last handle of an instance stops it. Idempotent.
     */
    public void close() {
        if (closing.compareAndSet(false, true)) {
            closed = true;
            network.close(); // before the handle goes: kmeta's thread keeps no reference to this producer
            RouteInstances.leave(metadata, this); // its counts stay in the instance's totals
            try {
                metadata.close();
            } finally {
                views.close();
            }
            log.debug("{}kmeta handle released", logPrefix);
        }
    }

    /** The waits the send protocol asks of kmeta: this producer's handle, and its re-created topics (issue 27). */
    private record Waits(KafkaMetadata metadata, Recreations recreations, ConfirmedTopics confirmed)
            implements SendProtocol.Waits {
        @Override
        public int partitionCount(String topic) {
            TopicMetadata t = metadata.fetch().topic(topic);
            return t == null ? -1 : t.partitionCount();
        }

        @Override
        public TimeoutException beyondCount(String topic, int partition) {
            return recreations.beyondCount(topic, partition);
        }

        @Override
        public void awaitTopic(String topic, int partition, Deadline deadline) {
            metadata.awaitTopic(topic, partition, deadline);
        }

        @Override
        public void awaitVersion(int version, long timeoutMs) {
            metadata.awaitUpdate(version, metadata.newDeadline(Duration.ofMillis(timeoutMs)));
        }

        @Override
        public void awaitConfirmed(List<String> topics, long timeoutMs) {
            confirmed.await(topics, metadata.newDeadline(Duration.ofMillis(timeoutMs)));
        }
    }

    /** A call kmeta answers itself (update, failedUpdate, bootstrap, rebootstrap, fatalError...): ignored. */
    public void ignored(String call) {
        log.debug("{}{} ignored: kmeta keeps the metadata", logPrefix, call);
    }
}
