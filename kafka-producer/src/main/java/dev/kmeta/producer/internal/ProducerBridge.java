package dev.kmeta.producer.internal;

import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.internal.Handles;
import org.apache.kafka.clients.Metadata;
import org.apache.kafka.clients.MetadataSnapshot;
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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
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
 * <p>Thread-safe; no method takes a lock (the views' lazy parts excepted, built once per snapshot, off the send
 * path). What a send is doing (the topic and partition of the send in progress, a hold, kmeta's timeout waiting to
 * be thrown) is {@link SendProtocol}'s, kept per thread, as KafkaProducer calls these methods in sequence on the
 * sending thread; this class asks it at each call.
 */
@SuppressKafkaInternalApiUsage("answers KafkaProducer's and Sender's ProducerMetadata calls (MetadataSnapshot, "
        + "Metadata.LeaderIdAndEpoch, Errors) for every stand-in")
public final class ProducerBridge {
    private static final Logger log = LoggerFactory.getLogger(ProducerBridge.class);
    /**
     * How often the producer's network thread looks at the snapshot again while it waits for news it asked for
     * ({@link #requestUpdate()}) when its Sender could not be read to be woken ({@link #attach}); otherwise kmeta's
     * answer wakes it.
     */
    static final long SENDER_POLL_MS = 10;
    /**
     * Before kmeta's first answer the producer's network thread waits in {@link #fetch()}, woken by that answer; this
     * is the longest it goes without looking at whether its producer began closing.
     */
    static final long FIRST_ANSWER_SLICE_MS = 10;
    /** The name KafkaProducer gives its network thread, before {@link #attach} tells which thread it is. */
    private static final String NETWORK_THREAD_PREFIX = "kafka-producer-network-thread | ";

    /**
     * The producer's network thread, whether its Sender still runs, and how to wake it
     * ({@link KafkaClientsAbi#senderOf}).
     *
     * @param thread  the producer's network thread
     * @param running false once the producer's {@code close()} began
     * @param wakeup  wakes the producer's network thread from its selector ({@code Sender.wakeup()}); any thread
     */
    record SenderRef(Thread thread, java.util.function.BooleanSupplier running, Runnable wakeup) {
    }

    private final KafkaMetadata metadata;
    private final ProducerViews views;
    private final long giveUpEarlyMs;
    private final String logPrefix;
    /** The name of the producer's network thread ({@code kafka-producer-network-thread | clientId}). */
    private final String networkThreadName;
    /** The producer's network thread and Sender, once the producer is made ({@link #attach}); null before. */
    private volatile SenderRef sender;
    /** How many times the producer's network thread waited for kmeta's first answer in {@link #fetch()}. */
    private final LongAdder firstAnswerWaits = new LongAdder();
    /** Where the producer's first request goes, once kmeta's first answer ends the network thread's wait. */
    private final FirstRequestTarget firstRequest;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final LeaderHold holds;
    /** What each sending thread's send is doing: every per-send state ({@link SendProtocol}). */
    private final SendProtocol protocol;
    /**
     * The kmeta version the producer's network thread waits to see passed ({@link #requestUpdate}, a newer leader hint),
     * or {@link #NOTHING_WANTED}: set on the network thread, cleared by whoever sees it passed first - kmeta's thread
     * ({@link #onNewVersion}, which then wakes the network thread) or the network thread's own next poll.
     */
    private final java.util.concurrent.atomic.AtomicInteger wantedVersion =
            new java.util.concurrent.atomic.AtomicInteger(NOTHING_WANTED);
    private static final int NOTHING_WANTED = Integer.MIN_VALUE;
    /** Removes {@link #onNewVersion} from kmeta's version listeners; set by {@link #attach}. */
    private volatile Runnable stopListening;
    /** How many times kmeta's answer woke the producer's network thread (or its own poll found it arrived). */
    private final LongAdder networkThreadWakeups = new LongAdder();
    /**
     * The topics the Sender named as having no leader in its view: in its loop, between its
     * {@link #fetchMetadataSnapshot()} and its {@link #requestUpdate()}, it adds each such topic. Network thread only.
     */
    private final Set<String> unknownLeaderTopics = new LinkedHashSet<>();
    /** More topics than {@link #MAX_UNKNOWN_LEADER_TOPICS} were added: the next update is a full one. Network thread. */
    private boolean unknownLeaderOverflow;
    /**
     * True from the Sender's {@link #fetchMetadataSnapshot()} to its requestUpdate or the NetworkClient's next
     * {@link #timeToNextUpdate()} (its poll, where callbacks run and disconnects ask for updates). Network thread.
     */
    private boolean senderReadyCheck;
    /** Past this many unknown-leader topics one full refresh is asked for instead of one targeted refresh each. */
    static final int MAX_UNKNOWN_LEADER_TOPICS = 64;
    private final LongAdder updateRequests = new LongAdder();
    private final LongAdder targetedUpdates = new LongAdder();
    private final LongAdder leaderHints = new LongAdder();
    private final LongAdder staleLeaderHints = new LongAdder();
    /** Issue 27: the topics this producer saw deleted and re-created ({@link Recreations}). */
    final Recreations recreations;
    /** Issue 37: the topics this producer saw described since it first asked, for requests never rebuilt. */
    private final ConfirmedTopics confirmed;

    ProducerBridge(KafkaMetadata metadata, long metadataIdleMs, long giveUpEarlyMs, long maxBlockMs,
                   String logPrefix) {
        this(metadata, metadataIdleMs, giveUpEarlyMs, maxBlockMs, logPrefix, null);
    }

    ProducerBridge(KafkaMetadata metadata, long metadataIdleMs, long giveUpEarlyMs, long maxBlockMs,
                   String logPrefix, String clientId) {
        this.networkThreadName = clientId == null ? null : NETWORK_THREAD_PREFIX + clientId;
        this.metadata = metadata;
        this.views = new ProducerViews(metadata, metadataIdleMs);
        this.giveUpEarlyMs = giveUpEarlyMs;
        this.holds = new LeaderHold(metadata, maxBlockMs);
        this.firstRequest = new FirstRequestTarget(metadata);
        this.recreations = new Recreations(metadata, logPrefix); // issue 27
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
        if (holds.isNetworkThread()) {
            return views.current().cluster;
        }
        if (metadata.fetch().nodes().isEmpty() && isProducerNetworkThread()) {
            awaitFirstAnswer();
            // the Sender's leastLoadedNode for its first request: the broker the pending sends go to, if proven
            return firstRequest.steer(views.current().cluster, this::producerStopping);
        }
        Cluster view = views.forSend(protocol.viewTopic());
        return protocol.hidesArrivedTopic() ? Cluster.empty() : view; // the verdict read after the view
    }

    /**
     * The producer is made: its network thread and Sender (null when they cannot be read). With a Sender to wake,
     * kmeta's new versions wake the producer's network thread when it waits for one ({@link #onNewVersion}).
     */
    void attach(SenderRef ref) {
        sender = ref;
        if (ref != null && ref.wakeup() != null) {
            Runnable stop = Handles.onNewVersion(metadata, this::onNewVersion);
            stopListening = stop;
            if (closed.get()) { // closed meanwhile: close() may have missed it
                stop.run();
            }
        }
    }

    /**
     * kmeta published a new version (kmeta's sender thread): when the producer's network thread waits for a version
     * this one passes, it is woken - as a stock producer's network thread is woken by its own Metadata answer - instead
     * of looking every few ms.
     */
    private void onNewVersion() {
        int wanted = wantedVersion.get();
        if (wanted != NOTHING_WANTED && (closed.get() || metadata.fetch().version() > wanted)
                && wantedVersion.compareAndSet(wanted, NOTHING_WANTED)) {
            wakeNetworkThread();
        }
    }

    private void wakeNetworkThread() {
        SenderRef ref = sender;
        if (ref != null && ref.wakeup() != null) {
            networkThreadWakeups.increment();
            ref.wakeup().run();
        }
    }

    /** True when the producer's network thread can be woken by kmeta's answers (its Sender was read). */
    private boolean wakeable() {
        SenderRef ref = sender;
        return ref != null && ref.wakeup() != null && stopListening != null;
    }

    /** How many times kmeta's answers woke the producer's network thread (it waited for them). */
    public long networkThreadWakeups() {
        return networkThreadWakeups.sum();
    }

    /**
     * True on this producer's network thread: the one {@link #attach} named; before it, the thread KafkaProducer's
     * constructor started under its network thread's name (no other thread has the producer yet).
     */
    private boolean isProducerNetworkThread() {
        SenderRef ref = sender;
        Thread t = Thread.currentThread();
        return ref != null ? ref.thread() == t : networkThreadName != null && networkThreadName.equals(t.getName());
    }

    /**
     * Before kmeta's first answer (no broker known) the producer's network thread has nothing to send and must not
     * connect anywhere on its own: its first {@code fetch()} (the Sender's {@code leastLoadedNode}, for an idempotent
     * producer's InitProducerId) would otherwise connect to the bootstrap addresses kmeta's thread is already trying,
     * and log every failure a second time. So it waits here until kmeta knows a broker, the producer begins closing
     * (its Sender stops running) or this bridge closes: parked where kmeta's answer wakes it at once (its InitProducerId
     * goes out as soon as kmeta knows a broker - to a leader of its pending sends once kmeta's probe found it
     * accepting: {@link FirstRequestTarget}), looking at its producer every {@value #FIRST_ANSWER_SLICE_MS} ms.
     */
    private void awaitFirstAnswer() {
        firstAnswerWaits.increment();
        while (!closed.get()) {
            dev.kmeta.cluster.Cluster now = metadata.fetch();
            if (!now.nodes().isEmpty() || producerStopping()
                    || Thread.currentThread().isInterrupted()) { // an interrupt is KafkaProducer's to see
                return;
            }
            // on the system's clock, as KafkaProducer's own (lastSuccessfulUpdate, the idle expiry): not the
            // instance's Ticker, whose fake would stop a thread no test drives; not kmeta's awaitUpdate, which would
            // count as an application's metadata wait
            Handles.parkUntilNewVersion(metadata, now.version(), TimeUnit.MILLISECONDS.toNanos(FIRST_ANSWER_SLICE_MS));
        }
    }

    /** True once this bridge closed or its producer began closing (its Sender stops running). */
    private boolean producerStopping() {
        SenderRef ref = sender;
        return closed.get() || ref != null && !ref.running().getAsBoolean();
    }

    /**
     * How many times the producer's first request (an idempotent producer's InitProducerId) was steered to a leader
     * of its pending sends that accepted kmeta's connection ({@link FirstRequestTarget}): 0 or 1.
     */
    public long firstRequestsToLeader() {
        return firstRequest.steered();
    }

    /** How many times the producer's network thread waited for kmeta's first answer (at most once, normally). */
    public long firstAnswerWaits() {
        return firstAnswerWaits.sum();
    }

    /**
     * {@code add(topic, now)}: kmeta's subscribe, allocation-free when the topic is known; for a send whose first
     * fetch() hid its topic, the {@link LeaderHold} (until {@code max.block.ms} from the send).
     *
     * @throws TimeoutException  kmeta's diagnosed timeout of a held send (ADVERTISED_LISTENER_UNREACHABLE)
     * @throws InterruptException if the thread is interrupted while held
     */
    public void add(String topic, long nowMs) {
        if (closed.get()) {
            return;
        }
        views.add(topic, nowMs);
        metadata.subscribe(topic);
        if (holds.isNetworkThread() && senderReadyCheck) { // the field is the network thread's alone
            noteUnknownLeader(topic);
        }
        protocol.add(topic);
    }

    /** The Sender's add of a topic whose leader its view lacks; its requestUpdate follows. Network thread only. */
    private void noteUnknownLeader(String topic) {
        if (unknownLeaderTopics.size() < MAX_UNKNOWN_LEADER_TOPICS) {
            unknownLeaderTopics.add(topic);
        } else {
            unknownLeaderOverflow = true;
        }
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
            if (!closed.get()) {
                views.add(topic, nowMs);
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
        protocol.onSend(topic, partition == null ? MetadataClient.ANY_PARTITION : partition, !closed.get());
    }

    /** The interceptor's onAcknowledgement with an exception: on a sending thread, its send failed in send(). */
    void sendFailed() {
        if (!holds.isNetworkThread()) {
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
        if (holds.isNetworkThread()) { // the Sender's loop: its ready check follows
            endReadyCheck();
            senderReadyCheck = true;
        }
        return views.current().snapshot;
    }

    /** {@code topicIds()}: of this producer's topics. */
    public Map<String, Uuid> topicIds() {
        return views.current().topicIds;
    }

    /** {@code topicNames()}: of this producer's topics. */
    public Map<Uuid, String> topicNames() {
        return views.current().topicNames();
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
        if (closed.get()) {
            return metadata.fetch().version();
        }
        updateRequests.increment();
        try {
            int version = holds.isNetworkThread() ? requestFromNetworkThread() : metadata.requestUpdate();
            want(version);
            return version;
        } catch (KafkaException e) {
            log.debug("{}metadata update request refused: {}", logPrefix, e.getMessage());
            return metadata.fetch().version();
        }
    }

    /** The network thread's request: targeted at the Sender's unknown-leader topics when it named some. */
    private int requestFromNetworkThread() {
        boolean targeted = senderReadyCheck && !unknownLeaderTopics.isEmpty() && !unknownLeaderOverflow;
        endReadyCheck();
        if (!targeted) {
            return metadata.requestUpdate();
        }
        // read before asking, as kmeta's requestUpdate does: the answer may land before this returns
        int version = metadata.fetch().version();
        for (String topic : unknownLeaderTopics) {
            metadata.invalidate(topic, 0);
        }
        unknownLeaderTopics.clear();
        targetedUpdates.increment();
        return version;
    }

    /** The Sender's ready check is over: what it noted is dropped. Network thread only. */
    private void endReadyCheck() {
        senderReadyCheck = false;
        unknownLeaderOverflow = false;
        unknownLeaderTopics.clear();
    }

    /** How many times the producer's Sender or NetworkClient asked for a metadata update. */
    public long updateRequests() {
        return updateRequests.sum();
    }

    /** How many of {@link #updateRequests()} asked kmeta for the Sender's unknown-leader topics only. */
    public long targetedUpdates() {
        return targetedUpdates.sum();
    }

    // issue 28 (wt-worse): one accessor, for tests and the first-send harness
    /** How many of this producer's sends were held in {@code send()} for their leader ({@link LeaderHold}). */
    public long leaderHolds() {
        return holds.held();
    }

    /** How many KIP-951 leader hints (a leader and an epoch) this producer's produce answers carried. */
    public long leaderHints() {
        return leaderHints.sum();
    }

    /** How many of {@link #leaderHints()} were older than kmeta's snapshot, so dropped before they reached kmeta. */
    public long staleLeaderHints() {
        return staleLeaderHints.sum();
    }

    /**
     * {@code timeToNextUpdate(now)}: never 0, so the producer's NetworkClient never sends a Metadata request. While its
     * network thread waits for a version kmeta has not published, kmeta's answer wakes it ({@link #onNewVersion}): it
     * sleeps on its own timers, as a stock producer's does while its Metadata request is out. A version that passed
     * before this poll wakes the poll at once (the Sender looks again). Only when the Sender could not be read does
     * the thread look every {@value #SENDER_POLL_MS} ms instead.
     */
    public long timeToNextUpdate() {
        holds.onNetworkThread(); // only the producer's NetworkClient asks
        endReadyCheck(); // its poll: what follows (callbacks, disconnects) is not the Sender's ready check
        recreations.onNetworkThread(); // issue 27: fail what is queued for a re-created topic's vanished partitions
        int wanted = wantedVersion.get();
        if (closed.get() || wanted == NOTHING_WANTED) {
            return Long.MAX_VALUE;
        }
        if (metadata.fetch().version() > wanted) { // published between the request and this poll
            if (wantedVersion.compareAndSet(wanted, NOTHING_WANTED)) {
                wakeNetworkThread(); // the poll that follows returns at once: the Sender looks at the new view
            }
            return Long.MAX_VALUE;
        }
        return wakeable() ? Long.MAX_VALUE : SENDER_POLL_MS;
    }

    /** The network thread waits to see {@code version} passed (the larger of what it waits for). */
    private void want(int version) {
        wantedVersion.accumulateAndGet(version, (w, v) -> w == NOTHING_WANTED ? v : Math.max(w, v));
    }

    /**
     * KIP-951: the leaders a produce answer named feed kmeta's {@code onLeaderHint} (a hint without a leader asks
     * kmeta to refresh the partition). Returns the partitions hinted; kmeta applies them on its own thread. A hint
     * whose epoch kmeta's snapshot already has is dropped here, as kmeta would drop it, without waking kmeta's thread
     * (every batch of a partition whose leader moved answers with the same hint, and kmeta's refresh may be first).
     * Only a hint newer than the snapshot is waited for (kmeta's publishing it wakes the network thread): a stale one
     * would be waited for until some other change.
     */
    public Set<TopicPartition> updatePartitionLeadership(Map<TopicPartition, Metadata.LeaderIdAndEpoch> leaders,
                                                         List<Node> nodes) {
        if (closed.get() || leaders.isEmpty()) {
            return Set.of();
        }
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

    /**
     * kmeta's rule for a stale hint: the partition is known with an epoch at least the hint's. An unknown partition
     * is not stale (kmeta refreshes its topic); nor is one without an epoch.
     */
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

    /**
     * {@code lastSuccessfulUpdate()} (the producer's metadata-age metric): now minus kmeta's metadata age. Now on
     * the wall clock: KafkaProducer compares it with its own {@code Time}'s, which is the system's.
     */
    public long lastSuccessfulUpdate() {
        return System.currentTimeMillis() - metadata.metadataAgeMs();
    }

    /** {@code updateVersion()}: kmeta's snapshot version. */
    public int updateVersion() {
        return metadata.fetch().version();
    }

    /** {@code isClosed()}. */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * {@code close()} (the producer's NetworkClient closes its metadata when the producer closes): releases this
     * producer's kmeta handle; the last handle of an instance stops it. Idempotent.
     */
    public void close() {
        if (closed.compareAndSet(false, true)) {
            Runnable stop = stopListening;
            if (stop != null) {
                stop.run(); // before the handle goes: kmeta's thread keeps no reference to this producer
            }
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
