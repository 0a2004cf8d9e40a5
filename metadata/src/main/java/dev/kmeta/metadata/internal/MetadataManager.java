package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.cluster.internal.TopicUsage;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.PrefetchResult;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.metadata.Ticker;
import dev.kmeta.metadata.TooManyTopicsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The metadata manager: the one writer of the {@link Cluster} snapshot, and the {@link MetadataClient} that
 * application threads use. No network here: a sender drives it with decoded answers.
 *
 * <h2>Concurrency</h2>
 * Two kinds of callers:
 * <ul>
 *   <li><b>Application threads</b> call the {@link MetadataClient} methods, from any number of threads. They read the
 *       snapshot with one volatile read, post commands (topics to fetch, leader hints) through a lock-free MPSC queue
 *       and wake the sender through the {@link Waker}; waiters park on per-topic or per-version {@link WaitQueue}s.
 *       None of this takes a lock the sender holds.</li>
 *   <li><b>The sender thread</b> - exactly one - calls the driver methods ({@link #poll}, {@link #beginRefresh},
 *       {@link #onResponse}, {@link #onFailure}, {@link #onFatal}, {@link #onNodeDisconnected}). It alone runs the
 *       {@link RefreshStateMachine}, merges answers and publishes each new snapshot with one volatile store, then
 *       wakes exactly the waiters whose topic the answer was about (and the version waiters).</li>
 * </ul>
 * Times passed to the driver methods are ms on the same {@link Ticker} the manager was made with.
 *
 * <h2>Rooms</h2>
 * This class is the facade and keeps the cache hit (one volatile read of the snapshot, a usage stamp at most once a
 * second; allocation-free) to itself. Past a miss the work is in three package-private rooms, one per kind of caller:
 * {@link ApplicationWaits} (the application's waits), {@link CommandInbox} (what application threads post to the
 * sender, and its draining) and {@link AnswerBook} (the sender's bookkeeping of requests, answers and failures);
 * two read-only helpers answer the questions asked outside any wait: {@link PartitionDiagnoses} (a partition's
 * diagnosis) and {@link MetadataAges} (how old the metadata is). The shared state is {@link ManagerState}'s, which
 * this class extends (so the hit reads the snapshot without a hop); no room holds it: the sender's writers get its
 * {@link ManagerState.Publisher}, the readers its read-only {@link ManagerState.View}.
 */
public final class MetadataManager extends ManagerState implements MetadataClient, Supplier<Cluster> {
    private static final Logger log = LoggerFactory.getLogger(MetadataManager.class);

    private final RefreshStateMachine machine;
    private final CommandInbox inbox;
    private final ApplicationWaits waits;
    private final AnswerBook answers;
    private final PartitionDiagnoses diagnoses;
    private final MetadataAges ages;

    /** A manager for one client; {@code ticker} is the clock of every wait and of the driver methods' times. */
    /** {@code kmeta.metadata.leaderless.partition=fail}: awaitLeader fails at once when every replica is offline. */
    private final boolean failLeaderless;

    public MetadataManager(MetadataConfig config, Ticker ticker) {
        super(config, ticker);
        this.failLeaderless = config.leaderlessPartition() == MetadataConfig.LeaderlessPartition.FAIL;
        JfrEvents.load();
        Backoff retry = new Backoff(config.retryBackoffMs(), config.retryBackoffMaxMs(), config.jitter());
        Backoff fast = new Backoff(config.leaderlessRefreshMs(), config.retryBackoffMaxMs(), config.jitter());
        this.machine = new RefreshStateMachine(clientId(), config.metadataMaxAgeMs(), retry, fast);
        this.inbox = new CommandInbox(publisher(), machine);
        this.waits = new ApplicationWaits(view(), inbox);
        this.answers = new AnswerBook(publisher(), machine, config);
        this.diagnoses = new PartitionDiagnoses(view());
        this.ages = new MetadataAges(view());
    }

    // ---------------------------------------------------------------- application threads

    @Override
    public Cluster fetch() {
        return snapshot();
    }

    /**
     * {@link #fetch()}, as the one call an adapter's per-send path makes on the manager itself rather than through a
     * handle (the KafkaProducer route: each object a send passes through is a cache miss when the caches went cold
     * between sends).
     */
    @Override
    public Cluster get() {
        return snapshot();
    }

    @Override
    public int requestUpdate() {
        // The version is read before the request is posted: read after, it could already be the answer to this very
        // request, and the caller's awaitUpdate(version) would wait past it for one that nobody asked for.
        int version = snapshot().version();
        inbox.requestFull();
        return version;
    }

    @Override
    public void awaitUpdate(int lastVersion, Deadline deadline) {
        waits.awaitUpdate(lastVersion, deadline);
    }

    /**
     * Parks the calling thread until the snapshot's version is past {@code lastVersion}, the manager closes, the
     * thread is interrupted (status kept) or {@code maxNanos} of the system's clock pass. Not an application's wait:
     * nothing is counted or diagnosed, and the clock is never the instance's (a test's fake time must not stop a
     * thread no test drives). For the KafkaProducer route's network thread, which waits for kmeta's first answer and
     * must look at its own producer now and then; kmeta's answer wakes it as it wakes {@code awaitUpdate}'s waiters.
     */
    public void parkUntilNewVersion(int lastVersion, long maxNanos) {
        view().parkForVersion(Ticker.system(), maxNanos, () -> snapshot().version() <= lastVersion && !isClosed());
    }

    /**
     * Parks the calling thread on the manager's ticker for at most {@code maxNanos}, until any change of what the
     * KafkaProducer route's waits read: a new version, a connection outcome the evidence recorded (accepted, ready,
     * a problem, a bootstrap name not resolving within its bound), close, or an interrupt (status kept); it may also
     * return for no reason. Unless {@code stillWaiting}, checked once the thread is queued (after the writer's last
     * write, so no wake-up is lost), says there is no need. Not an application's wait: nothing is counted or
     * diagnosed. Callers re-check their condition and deadline after every return.
     */
    public void parkUntilChange(long maxNanos, BooleanSupplier stillWaiting) {
        parkForChange(maxNanos, () -> !isClosed() && stillWaiting.getAsBoolean());
    }

    /**
     * Runs {@code listener} on the sender thread each time it wakes the version waiters (a new snapshot from an answer
     * or leader hints; close; a fatal error); returns what removes it. For threads that sleep somewhere kmeta cannot
     * park them - the KafkaProducer route's network thread, in its producer's selector - so that kmeta's answer wakes
     * them instead of their looking every few ms. The listener must be quick and must not block; one that throws is
     * counted and skipped.
     */
    public Runnable onNewVersion(Runnable listener) {
        return addVersionListener(listener);
    }

    @Override
    public Cluster awaitTopic(String topic, int partition, Deadline deadline) {
        Cluster c = snapshot();
        TopicMetadata t = c.topic(topic);
        if (t != null && ApplicationWaits.answers(t, partition)) {
            stampHit(topic, t);
            return c;
        }
        return waits.awaitTopic(topic, partition, deadline);
    }

    @Override
    public Node awaitLeader(String topic, int partition, Deadline deadline) {
        Cluster c = snapshot();
        TopicMetadata t = c.topic(topic);
        if (t != null) {
            PartitionMetadata p = t.partition(partition);
            Node leader = p == null || !p.hasLeader() ? null : c.node(p.leaderId());
            if (leader != null) {
                stampHit(topic, t);
                return leader;
            }
        }
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0: " + partition);
        }
        return waits.awaitTopic(topic, partition, deadline,
                failLeaderless).leader(topic, partition);
    }

    /**
     * Subscribes {@code topic} without waiting: a known topic is stamped as used (allocation-free, as a cache hit); an
     * unknown one is asked for (one request however many callers). What a producer calls on every send before it
     * decides whether it must wait, and what a warm-up calls for many topics at once.
     *
     * @return true when the snapshot already has partitions for the topic
     * @throws TooManyTopicsException  if subscribing the topic would pass {@code kmeta.metadata.max.topics}
     * @throws MetadataClosedException if the client is closed
     */
    public boolean subscribe(String topic) {
        TopicMetadata t = snapshot().topic(topic);
        if (t != null && t.partitionCount() > 0) {
            stampHit(topic, t);
            return true;
        }
        waits.subscribe(topic);
        return false;
    }

    /**
     * Warm-up: subscribes every topic at once - the unknown ones go to the sender as one command, so one metadata
     * request asks for all of them - and waits for all within {@code deadline}; returns what it got and, for each
     * topic it did not get, the diagnosis a send timing out on it would carry. Topics the brokers refuse (not
     * authorized, invalid name) are in the result at once, not waited for. A prefetch of known topics is a cache hit
     * (no wait, no request).
     *
     * @throws TooManyTopicsException       if subscribing would pass {@code kmeta.metadata.max.topics} (the topics
     *                                      before it stay subscribed)
     * @throws MetadataClosedException      if the client is or gets closed
     * @throws dev.kmeta.metadata.MetadataFatalException on an error no retry fixes
     * @throws dev.kmeta.metadata.MetadataInterruptedException if the thread is or gets interrupted (status kept)
     */
    public PrefetchResult prefetch(Collection<String> topics, Deadline deadline) {
        return waits.prefetch(topics, deadline);
    }

    /**
     * Subscribes every topic without waiting, the unknown ones in one command (one request): the start-up prefetch of
     * {@code kmeta.metadata.prefetch.topics}. Any thread.
     */
    public void subscribeAll(Collection<String> topics) {
        waits.subscribeAll(topics);
    }

    /**
     * Why a record for this partition cannot go out now, decided by the rules of a wait's diagnosis: the leader's
     * advertised address never accepted a connection while another address answered
     * (ADVERTISED_LISTENER_UNREACHABLE), the leader answered before and cannot be reached now (BROKERS_UNREACHABLE),
     * no leader (LEADER_NOT_AVAILABLE), partition out of range, topic not found...; null when the snapshot has the
     * partition with a leader and nothing recorded speaks against that leader.
     *
     * <p>Any thread. Cheap enough for a producer to ask for every record it checks: when the partition has a leader
     * whose last recorded event is not a problem it reads the snapshot and that leader's evidence, allocating
     * nothing; only a partition in doubt gets the full diagnosis.
     */
    public Diagnosis diagnosePartition(String topic, int partition) {
        Objects.requireNonNull(topic, "topic");
        return diagnoses.partition(topic, partition);
    }

    /**
     * Why a record for this partition was not delivered (it expired): {@link #diagnosePartition}'s answer, or, when
     * the partition has a leader that nothing recorded speaks against, LEADER_NOT_RESPONDING naming it and kmeta's
     * last contact with it. Never null. Any thread.
     */
    public Diagnosis diagnoseUndelivered(String topic, int partition) {
        Objects.requireNonNull(topic, "topic");
        return diagnoses.undelivered(topic, partition);
    }

    /**
     * A cache hit's usage stamp. No clock read: the sender's last poll time is precise enough. And no subscription
     * lookup while the topic object says it was used within the touch granularity.
     */
    private void stampHit(String topic, TopicMetadata t) {
        long nowNs = coarseNowNs();
        if (!TopicUsage.usedWithin(t, nowNs, TopicEntry.TOUCH_GRANULARITY_NS)) {
            touch(topic, t, nowNs);
        }
    }

    /**
     * Keeps the topic's subscription from idling out, at most once per granularity per topic object: the entry's
     * time (what expiry reads) is written whenever the object's stamp is, so it is never staler than the stamp by
     * more than one granularity. A topic no longer subscribed is not stamped: every hit looks it up, as before.
     */
    private void touch(String topic, TopicMetadata t, long nowNs) {
        TopicEntry e = subscriptions().get(topic);
        if (e != null) {
            e.touch(nowNs);
            TopicUsage.markUsed(t, nowNs);
        }
    }

    /** What the sender saw of each broker address; the sender writes it, diagnoses read it. */
    @Override
    public EvidenceRecorder connections() {
        return super.connections();
    }

    @Override
    public void onLeaderHint(String topic, int partition, int leaderId, int leaderEpoch, Node endpoint) {
        Objects.requireNonNull(topic, "topic");
        inbox.postLeaderHint(topic, partition, leaderId, leaderEpoch, endpoint);
    }

    @Override
    public void invalidate(String topic, int partition) {
        TopicEntry e = subscriptions().get(topic);
        if (e != null) {
            inbox.requestTopic(e);
        }
    }

    @Override
    public RefreshState state() {
        return isClosed() ? RefreshState.CLOSED : machine.state();
    }

    @Override
    public void close() {
        if (!markClosed()) {
            return;
        }
        log.debug("[{}] metadata closed; releasing every waiter", clientId());
        // The waiters first: waking the sender goes through the JDK selector's wakeup lock, which a descheduled
        // holder (the sender thread, another waker) can keep for as long as the machine does not run it.
        releaseEveryWaiter();
        inbox.wakeSender();
    }

    /** True once {@link #close()} was called. */
    @Override
    public boolean isClosed() {
        return super.isClosed();
    }

    // ---------------------------------------------------------------- sender thread

    /** Sets how application threads wake the sender. Call before the sender starts. */
    public void setWaker(Waker waker) {
        inbox.setWaker(waker);
    }

    /** The clock the manager runs on. */
    @Override
    public Ticker ticker() {
        return super.ticker();
    }

    /** The manager's counters. */
    @Override
    public Counters counters() {
        return super.counters();
    }

    /** The subscribed topic names (a live view). */
    public Set<String> subscribedTopics() {
        return subscriptions().names();
    }

    /**
     * Ms since the last applied answer to a FULL request (kafka-clients' {@code metadata-age}: partial answers for
     * new or invalidated topics do not count); before the first one, ms since this manager was made. Any thread.
     */
    public long metadataAgeMs() {
        return ages.metadataAgeMs();
    }

    /**
     * Ms since an applied answer last described {@code topic} (full or partial request); -1 when the topic is not
     * subscribed or no answer described it yet (unknown to the brokers so far). Any thread.
     */
    public long topicAgeMs(String topic) {
        return ages.topicAgeMs(topic);
    }

    /** {@link #topicAgeMs} of every subscribed topic an answer described; a new map each call. Any thread. */
    public Map<String, Long> topicAgesMs() {
        return ages.topicAgesMs();
    }

    /**
     * The age of the oldest subscribed topic's metadata: the largest {@link #topicAgeMs} (ms); -1 when no subscribed
     * topic was described by an answer yet. One pass over the subscriptions. Any thread.
     */
    public long oldestTopicAgeMs() {
        return ages.oldestTopicAgeMs();
    }

    /** True when a thread is parked waiting for {@code topic} now (tests). */
    boolean hasParkedWaiter(String topic) {
        TopicEntry e = subscriptions().get(topic);
        return e != null && !e.waiters.isEmpty();
    }

    /** The request on the wire, or null. */
    public RefreshRequest inFlight() {
        return machine.inFlight();
    }

    /** How many times the state machine entered {@code s}. */
    public long transitions(RefreshState s) {
        return machine.transitions(s);
    }

    /**
     * Sender: takes the posted commands, expires idle topics, and returns ms until the next request is due (0 = now,
     * {@link Long#MAX_VALUE} = nothing to do until woken or an answer arrives).
     */
    public long poll(long nowMs) {
        inbox.senderLooked();
        publisher().senderPolls();
        if (isClosed()) {
            machine.close();
            // the sender's last act: a closed instance keeps no snapshot, so that a handle (or a closed producer)
            // someone still holds pins nothing of the cluster (issue 38: 14-15 MB at 100k partitions)
            publisher().publish(Cluster.empty());
            return Long.MAX_VALUE;
        }
        inbox.drain();
        answers.expireIdleTopics(nowMs);
        long untilStaleLookMs = answers.refreshStaleTopics(nowMs);
        return Math.min(machine.timeToNextUpdate(nowMs), untilStaleLookMs);
    }

    /** Sender: the next request if one is due now (moving to IN_FLIGHT), else null. */
    public RefreshRequest beginRefresh(long nowMs) {
        return answers.beginRefresh(nowMs);
    }

    /** Sender: the answer to {@code request} arrived; merge it, publish, wake whoever it concerns. */
    public void onResponse(RefreshRequest request, RefreshResponse response, long nowMs) {
        answers.onResponse(request, response, nowMs);
    }

    /** Sender: the request failed (disconnect, timeout, unusable answer); it is retried after backoff. */
    public void onFailure(RefreshRequest request, String reason, long nowMs) {
        answers.onFailure(request, reason, nowMs);
    }

    /**
     * Sender: an error no retry fixes by itself (authentication, unsupported version). Every waiter gets it at once;
     * new waits fail fast with it until an answer arrives again.
     *
     * @param request the request it ended, or null when none was in flight
     */
    public void onFatal(RefreshRequest request, Throwable error, long nowMs) {
        answers.onFatal(request, error, nowMs);
    }

    /**
     * Sender: evidence of a connection problem (refused, DNS, TLS) while no request could even go out; shown in
     * timeout messages until an answer arrives.
     */
    public void recordConnectionProblem(String summary) {
        if (summary != null) {
            publisher().failed(summary);
        }
    }

    /** Sender: the connection to {@code nodeId} dropped; topics it leads are refreshed. */
    public void onNodeDisconnected(int nodeId, long nowMs) {
        answers.onNodeDisconnected(nodeId);
    }
}
