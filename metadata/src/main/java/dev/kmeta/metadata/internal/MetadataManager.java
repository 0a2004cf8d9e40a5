package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.cluster.internal.TopicUsage;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataFatalException;
import dev.kmeta.metadata.MetadataInterruptedException;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.metadata.Ticker;
import dev.kmeta.metadata.TooManyTopicsException;
import dev.kmeta.metadata.TopicException;
import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscUnboundedXaddArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

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
 */
public final class MetadataManager implements MetadataClient {
    private static final Logger log = LoggerFactory.getLogger(MetadataManager.class);
    private static final long EXPIRY_SWEEP_INTERVAL_MS = 1_000;

    private final String clientId;
    private final Ticker ticker;
    private final long maxIdleNs;
    private final boolean allowAutoCreateTopics;
    private final boolean leaderlessRefresh;
    private final Counters counters = new Counters();
    private final Subscriptions subscriptions;
    private final MessagePassingQueue<Object> commands = new MpscUnboundedXaddArrayQueue<>(256);
    private final AtomicBoolean fullRequested = new AtomicBoolean();
    private final AtomicBoolean wakePending = new AtomicBoolean();
    private final WaitQueue versionWaiters = new WaitQueue();
    private volatile Waker waker = () -> { };
    private volatile Cluster snapshot = Cluster.empty();
    private volatile boolean closed;
    private volatile Throwable fatal;
    private volatile String lastFailure;
    private final EvidenceRecorder connections = new EvidenceRecorder();
    private volatile String previousClusterId;
    /** The ticker's time at the sender's last poll: the usage stamp of a cache hit (idle expiry is coarse anyway). */
    private volatile long coarseNowNs;
    private volatile long clusterIdChangedNs = Long.MIN_VALUE;
    /** Ticker ms when the manager was made: what the metadata age counts from before the first full answer. */
    private final long startedMs;
    /** Sender-written: ticker ms of the last applied answer to a FULL request, or {@link TopicEntry#NEVER_MS}. */
    private volatile long lastFullRefreshMs = TopicEntry.NEVER_MS;

    // Sender thread only.
    private final RefreshStateMachine machine;
    private final ResponseMerger merger;
    private final Set<String> leaderless = new HashSet<>();
    private long lastSweepMs = Long.MIN_VALUE / 4;

    /** A manager for one client; {@code ticker} is the clock of every wait and of the driver methods' times. */
    public MetadataManager(MetadataConfig config, Ticker ticker) {
        this.clientId = config.clientId();
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.maxIdleNs = config.metadataMaxIdleMs() * 1_000_000L;
        this.allowAutoCreateTopics = config.allowAutoCreateTopics();
        this.leaderlessRefresh = config.leaderlessRefreshMs() > 0;
        this.subscriptions = new Subscriptions(config.maxTopics(), counters);
        this.coarseNowNs = ticker.nanoTime();
        this.startedMs = ticker.milliTime();
        Backoff retry = new Backoff(config.retryBackoffMs(), config.retryBackoffMaxMs(), config.jitter());
        Backoff fast = new Backoff(config.leaderlessRefreshMs(), config.retryBackoffMaxMs(), config.jitter());
        this.machine = new RefreshStateMachine(clientId, config.metadataMaxAgeMs(), retry, fast);
        this.merger = new ResponseMerger(config.epochRewindAcceptCount());
    }

    // ---------------------------------------------------------------- application threads

    @Override
    public Cluster fetch() {
        return snapshot;
    }

    @Override
    public int requestUpdate() {
        // The version is read before the request is posted: read after, it could already be the answer to this very
        // request, and the caller's awaitUpdate(version) would wait past it for one that nobody asked for.
        int version = snapshot.version();
        if (fullRequested.compareAndSet(false, true)) {
            wakeSender();
        } else {
            counters.requestsCoalesced.increment();
        }
        return version;
    }

    @Override
    public void awaitUpdate(int lastVersion, long maxBlockMs) {
        if (maxBlockMs < 0) {
            throw new IllegalArgumentException("maxBlockMs must be >= 0: " + maxBlockMs);
        }
        Deadline deadline = Deadline.after(maxBlockMs, ticker);
        long startNs = ticker.nanoTime();
        counters.waitersNow.increment();
        try {
            while (snapshot.version() <= lastVersion) {
                throwIfUnusable();
                long remainingNs = deadline.remainingNs();
                if (remainingNs <= 0) {
                    counters.waitTimeouts.increment();
                    Diagnosis d = diagnose(null, ANY_PARTITION, maxBlockMs, null, deadline);
                    counters.recordTimeout(d.cause());
                    throw Failures.make().timeout("Metadata version did not move past " + lastVersion
                            + " within " + maxBlockMs + " ms" + lastFailureSuffix() + " [" + d.message() + "]", d);
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw interrupted("a metadata version past " + lastVersion);
                }
                versionWaiters.park(this, remainingNs,
                        () -> snapshot.version() <= lastVersion && !closed && fatal == null);
            }
        } finally {
            counters.waitersNow.decrement();
            counters.waitTimeNsTotal.add(ticker.nanoTime() - startNs);
        }
    }

    @Override
    public Cluster awaitTopic(String topic, int partition, Deadline deadline) {
        Cluster c = snapshot;
        TopicMetadata t = c.topic(topic);
        if (t != null && answers(t, partition)) {
            stampHit(topic, t);
            return c;
        }
        return awaitTopicSlowly(topic, partition, deadline);
    }

    @Override
    public Node awaitLeader(String topic, int partition, Deadline deadline) {
        Cluster c = snapshot;
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
        return awaitTopicSlowly(topic, partition, deadline).leader(topic, partition);
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
        TopicMetadata t = snapshot.topic(topic);
        if (t != null && t.partitionCount() > 0) {
            stampHit(topic, t);
            return true;
        }
        Objects.requireNonNull(topic, "topic");
        throwIfUnusable();
        TopicEntry e = subscriptions.subscribe(topic, ticker.nanoTime());
        e.touch(ticker.nanoTime());
        requestTopic(e);
        return false;
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
        Cluster c = snapshot;
        PartitionMetadata p = c.partition(topic, partition);
        Node leader = p == null || !p.hasLeader() ? null : c.node(p.leaderId());
        if (leader != null && !Diagnoser.leaderInDoubt(connections, leader)) {
            return null;
        }
        Diagnosis d = diagnose(topic, partition, 0, subscriptions.get(topic), null);
        return leader != null && d.cause() == Diagnosis.Cause.NO_ANSWER_IN_TIME ? null : d;
    }

    /**
     * A cache hit's usage stamp. No clock read: the sender's last poll time is precise enough. And no subscription
     * lookup while the topic object says it was used within the touch granularity.
     */
    private void stampHit(String topic, TopicMetadata t) {
        long nowNs = coarseNowNs;
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
        TopicEntry e = subscriptions.get(topic);
        if (e != null) {
            e.touch(nowNs);
            TopicUsage.markUsed(t, nowNs);
        }
    }

    private static boolean answers(TopicMetadata t, int partition) {
        if (partition == ANY_PARTITION) {
            return t.partitionCount() > 0;
        }
        PartitionMetadata p = t.partition(partition);
        return p != null && p.hasLeader();
    }

    private Cluster awaitTopicSlowly(String topic, int partition, Deadline deadline) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(deadline, "deadline");
        if (partition < ANY_PARTITION) {
            throw new IllegalArgumentException("partition must be >= 0 or ANY_PARTITION: " + partition);
        }
        throwIfUnusable();
        long startNs = ticker.nanoTime();
        TopicEntry e = subscriptions.subscribe(topic, startNs);
        e.activeWaiters.incrementAndGet();
        counters.waitersNow.increment();
        boolean asked = false;
        try {
            for (;;) {
                Cluster c = snapshot;
                if (answer(c, topic, partition)) {
                    e.touch(ticker.nanoTime());
                    return c;
                }
                throwIfUnusable();
                if (e.removed) {
                    e.activeWaiters.decrementAndGet();
                    e = subscriptions.subscribe(topic, ticker.nanoTime());
                    e.activeWaiters.incrementAndGet();
                    asked = false;
                }
                // Ask before looking at the budget: a zero-budget send must still make the topic known for the next.
                // But not again once this wait has asked and its budget is spent: waking the sender takes the JDK
                // selector's wakeup lock, and a holder waiting for a CPU (the sender, another waker) would keep this
                // timed-out wait past its deadline.
                e.touch(ticker.nanoTime());
                if (!asked || !deadline.isExpired()) {
                    requestTopic(e);
                    asked = true;
                }
                long remainingNs = deadline.remainingNs();
                if (remainingNs <= 0) {
                    counters.waitTimeouts.increment();
                    throw timeout(topic, partition, deadline, c, e);
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw interrupted(partition == ANY_PARTITION ? "topic " + topic
                            : "partition " + partition + " of topic " + topic);
                }
                TopicEntry entry = e;
                entry.waiters.park(this, remainingNs,
                        () -> snapshot == c && !closed && fatal == null && !entry.removed);
            }
        } finally {
            e.activeWaiters.decrementAndGet();
            counters.waitersNow.decrement();
            counters.waitTimeNsTotal.add(ticker.nanoTime() - startNs);
        }
    }

    /** True when the snapshot answers; throws when the brokers refused the topic. */
    private boolean answer(Cluster c, String topic, int partition) {
        if (c.unauthorizedTopics().contains(topic)) {
            Diagnosis d = diagnose(topic, partition, 0, subscriptions.get(topic), null);
            throw Failures.make().topic(topic, TopicException.Reason.NOT_AUTHORIZED, "Not authorized to describe "
                    + "topic " + topic + " (TOPIC_AUTHORIZATION_FAILED): grant Describe on it to this client's principal",
                    d);
        }
        if (c.invalidTopics().contains(topic)) {
            throw Failures.make().topic(topic, TopicException.Reason.INVALID_TOPIC, "Invalid topic name '" + topic
                    + "' (INVALID_TOPIC_EXCEPTION)", null);
        }
        TopicMetadata t = c.topic(topic);
        return t != null && answers(t, partition);
    }

    private MetadataTimeoutException timeout(String topic, int partition, Deadline deadline, Cluster c,
                                             TopicEntry e) {
        String what = partition == ANY_PARTITION ? "Topic " + topic
                : "Partition " + partition + " of topic " + topic;
        Diagnosis d = diagnose(topic, partition, deadline.budgetMs(), e, deadline);
        counters.recordTimeout(d.cause());
        return Failures.make().timeout(what + " not present in metadata after " + deadline.budgetMs()
                + " ms: " + d.cause() + ": " + d.seen() + ". Fix: " + d.fix(), d);
    }

    /** The diagnosis of a wait that ends now without an answer (or with a refusal). */
    private Diagnosis diagnose(String topic, int partition, long budgetMs, TopicEntry e, Deadline deadline) {
        Diagnoser.Facts f = new Diagnoser.Facts();
        f.snapshot = snapshot;
        f.topic = topic;
        f.partition = partition;
        f.budgetMs = budgetMs;
        f.entry = e;
        f.connections = connections;
        f.fatal = fatal;
        f.autoCreateAllowed = allowAutoCreateTopics;
        f.previousClusterId = previousClusterId;
        long changedNs = clusterIdChangedNs;
        long startNs = deadline == null ? 0 : deadline.deadlineNs() - budgetMs * 1_000_000L;
        f.clusterIdChangedDuringWait = changedNs != Long.MIN_VALUE && deadline != null && changedNs - startNs >= 0;
        if (deadline != null) {
            f.waitStartMs = startNs / 1_000_000L;
        }
        return Diagnoser.diagnose(f);
    }

    /** What the sender saw of each broker address; the sender writes it, diagnoses read it. */
    public EvidenceRecorder connections() {
        return connections;
    }

    private String lastFailureSuffix() {
        String f = lastFailure;
        return f == null ? "" : " (last request failure: " + f + ")";
    }

    private void requestTopic(TopicEntry e) {
        if (e.refreshRequested.compareAndSet(false, true)) {
            commands.offer(e);
            wakeSender();
        } else {
            counters.requestsCoalesced.increment();
        }
    }

    @Override
    public void onLeaderHint(String topic, int partition, int leaderId, int leaderEpoch, Node endpoint) {
        Objects.requireNonNull(topic, "topic");
        commands.offer(new LeaderHint(topic, partition, leaderId, leaderEpoch, endpoint));
        wakeSender();
    }

    @Override
    public void invalidate(String topic, int partition) {
        TopicEntry e = subscriptions.get(topic);
        if (e != null) {
            requestTopic(e);
        }
    }

    @Override
    public RefreshState state() {
        return closed ? RefreshState.CLOSED : machine.state();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        log.debug("[{}] metadata closed; releasing every waiter", clientId);
        // The waiters first: waking the sender goes through the JDK selector's wakeup lock, which a descheduled
        // holder (the sender thread, another waker) can keep for as long as the machine does not run it.
        wakeEveryWaiter();
        wakeSender();
    }

    /** True once {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    private void throwIfUnusable() {
        if (closed) {
            throw Failures.make().closed("The metadata client " + clientId + " is closed");
        }
        Throwable f = fatal;
        if (f != null) {
            Diagnosis d = diagnose(null, ANY_PARTITION, 0, null, null);
            // The diagnosis's one line names the real problem (e.g. the TLS root cause: expired, untrusted, wrong
            // host name), where the wire's error alone often says only "SSL handshake failed".
            throw Failures.make().fatal("Metadata unavailable for client " + clientId + ": " + d.cause() + ": "
                    + d.seen() + " (" + f + "). Fix: " + d.fix(), f, d);
        }
    }

    /**
     * What ends a wait whose thread was interrupted. The interrupt status is left set: the caller's code (and Kafka's
     * {@code InterruptException}) expect it; and a parked thread that is interrupted returns from {@code parkNanos}
     * at once, so a wait that did not check would spin until its deadline.
     */
    private static MetadataInterruptedException interrupted(String what) {
        return Failures.make().interrupted("Interrupted while waiting for metadata of " + what);
    }

    private void wakeSender() {
        if (wakePending.compareAndSet(false, true)) {
            waker.wakeup();
        }
    }

    /** Wakes every parked waiter so that it re-checks (close, fatal error, or a test that moved fake time). */
    public void wakeEveryWaiter() {
        versionWaiters.wakeAll();
        subscriptions.wakeAll();
    }

    // ---------------------------------------------------------------- sender thread

    /** Sets how application threads wake the sender. Call before the sender starts. */
    public void setWaker(Waker waker) {
        this.waker = Objects.requireNonNull(waker, "waker");
    }

    /** The clock the manager runs on. */
    public Ticker ticker() {
        return ticker;
    }

    /** The manager's counters. */
    public Counters counters() {
        return counters;
    }

    /** The subscribed topic names (a live view). */
    public Set<String> subscribedTopics() {
        return subscriptions.names();
    }

    /**
     * Ms since the last applied answer to a FULL request (kafka-clients' {@code metadata-age}: partial answers for
     * new or invalidated topics do not count); before the first one, ms since this manager was made. Any thread.
     */
    public long metadataAgeMs() {
        long last = lastFullRefreshMs;
        return Math.max(0, ticker.milliTime() - (last == TopicEntry.NEVER_MS ? startedMs : last));
    }

    /**
     * Ms since an applied answer last described {@code topic} (full or partial request); -1 when the topic is not
     * subscribed or no answer described it yet (unknown to the brokers so far). Any thread.
     */
    public long topicAgeMs(String topic) {
        TopicEntry e = subscriptions.get(topic);
        return e == null ? -1 : ageMs(e, ticker.milliTime());
    }

    /** {@link #topicAgeMs} of every subscribed topic an answer described; a new map each call. Any thread. */
    public Map<String, Long> topicAgesMs() {
        long nowMs = ticker.milliTime();
        Map<String, Long> ages = new TreeMap<>();
        for (TopicEntry e : subscriptions.all()) {
            long age = ageMs(e, nowMs);
            if (age >= 0) {
                ages.put(e.name, age);
            }
        }
        return ages;
    }

    private static long ageMs(TopicEntry e, long nowMs) {
        long refreshed = e.refreshedMs;
        return refreshed == TopicEntry.NEVER_MS ? -1 : Math.max(0, nowMs - refreshed);
    }

    /** True when a thread is parked waiting for {@code topic} now (tests). */
    boolean hasParkedWaiter(String topic) {
        TopicEntry e = subscriptions.get(topic);
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
        wakePending.set(false);
        coarseNowNs = ticker.nanoTime();
        if (closed) {
            machine.close();
            return Long.MAX_VALUE;
        }
        drainCommands(nowMs);
        expireIdleTopics(nowMs);
        return machine.timeToNextUpdate(nowMs);
    }

    /** Sender: the next request if one is due now (moving to IN_FLIGHT), else null. */
    public RefreshRequest beginRefresh(long nowMs) {
        if (closed || machine.timeToNextUpdate(nowMs) > 0) {
            return null;
        }
        RefreshRequest request = machine.begin(nowMs, subscriptions.names(), allowAutoCreateTopics);
        for (String topic : request.topics()) {
            TopicEntry e = subscriptions.get(topic);
            if (e != null) {
                e.asked = true;
            }
        }
        counters.requestsSent.incrementAndGet();
        return request;
    }

    /** Sender: the answer to {@code request} arrived; merge it, publish, wake whoever it concerns. */
    public void onResponse(RefreshRequest request, RefreshResponse response, long nowMs) {
        Cluster before = snapshot;
        ResponseMerger.Result result = merger.merge(before, response, name -> subscriptions.get(name) != null);
        if (result == null) {
            counters.responsesRejected.incrementAndGet();
            onFailure(request, "the answer listed no brokers", nowMs);
            return;
        }
        Cluster next;
        try {
            next = before.apply(result.delta);
        } catch (IllegalArgumentException bad) {
            counters.responsesRejected.incrementAndGet();
            onFailure(request, "unusable answer: " + bad.getMessage(), nowMs);
            return;
        }
        if (result.clusterIdChanged) {
            previousClusterId = before.clusterId();
            clusterIdChangedNs = ticker.nanoTime();
        }
        // The ages first, then the snapshot: a reader that sees the new version also sees the ages it brought.
        if (request.isFull()) {
            lastFullRefreshMs = nowMs;
        }
        recordChangedAnswers(request, response, next, result.changedTopics, nowMs);
        fatal = null;
        lastFailure = null;
        counters.responsesApplied.incrementAndGet();
        counters.recordLatency(Math.max(0, nowMs - machine.inFlightSinceMs()));
        counters.staleEpochsRejected.addAndGet(result.staleEpochsRejected);
        snapshot = next;
        // Wake first, then the sender's own bookkeeping: nothing below is what a woken waiter reads, and with 1,000
        // topics asked it is most of this call (bench P6). Only the topics whose state changed (appeared, moved, vanished,
        // refused): a waiter whose topic the answer asked for but left as it was would wake, find nothing and park
        // again - with 1,000 missing topics in one request, a herd of 999 on every answer. Unanswered waits are
        // re-asked by retryUnansweredWaits. (A thread woken here may see the state machine still IN_FLIGHT for the
        // few microseconds until onSuccess below; whatever it asks goes through the command queue either way.)
        wakeWaiters(result.changedTopics);
        recordOtherAnswers(request, response, next, result.changedTopics, nowMs);
        WorldChanges.log(log, clientId, before, next, result, counters);
        trackLeaderless(request.topics(), result.changedTopics, next);
        retryUnansweredWaits(request, next, result.changedTopics);
        // News is what a producer routes by: topics, brokers, the cluster id. Not the controller id: KRaft brokers
        // report a random live broker there, a different one from answer to answer on a multi-broker cluster, and
        // taking that for news reset the backoff on most answers (issue 14: ~5 requests/s for a missing partition).
        boolean news = changedAnyTopic(result.changedTopics, before, next) || result.clusterIdChanged
                || !next.nodes().equals(before.nodes());
        machine.onSuccess(request, news, nowMs);
    }

    /** True when a topic really differs once applied (a leader not in the broker list is no change twice over). */
    private static boolean changedAnyTopic(Set<String> names, Cluster before, Cluster next) {
        for (String name : names) {
            if (!Objects.equals(before.topic(name), next.topic(name))
                    || before.unauthorizedTopics().contains(name) != next.unauthorizedTopics().contains(name)
                    || before.invalidTopics().contains(name) != next.invalidTopics().contains(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A topic still missing while threads wait for it is asked again (after backoff), without relying on the
     * waiters to wake up and ask: the retry loop of a send waiting for a topic that does not exist yet. So is a known
     * topic the answer left unchanged while threads wait on it (a partition not there yet, or without a leader):
     * its waiters were not woken (only changed topics wake theirs), so they cannot ask themselves.
     */
    private void retryUnansweredWaits(RefreshRequest request, Cluster next, Set<String> changed) {
        for (String name : request.topics()) {
            TopicEntry e = subscriptions.get(name);
            if (e == null || e.activeWaiters.get() == 0 || next.unauthorizedTopics().contains(name)
                    || next.invalidTopics().contains(name)) {
                continue;
            }
            if (next.topic(name) == null) {
                machine.addNew(name, false);
            } else if (!changed.contains(name)) {
                machine.addRefresh(name, false);
            }
        }
    }

    /**
     * Records what the answer said of the asked topics it describes or changed (their errors for diagnoses, their
     * ages), before the snapshot is published: a reader of the new version sees the ages it brought, and a waiter it
     * wakes (its topic changed) sees what it said of that topic. The other asked topics - left as they were, with
     * nothing but an error, 999 of them when 1,000 missing topics were asked (bench P6) - wait until after the wake.
     */
    private void recordChangedAnswers(RefreshRequest request, RefreshResponse response, Cluster next,
                                      Set<String> changed, long nowMs) {
        Set<String> asked = request.topics();
        for (TopicMetadata answer : response.topics().values()) {
            if (describes(answer) && asked.contains(answer.name())) {
                recordAnswer(answer.name(), answer, next, nowMs);
            }
        }
        for (String name : changed) {
            TopicMetadata answer = response.topics().get(name);
            if (!describes(answer) && asked.contains(name)) {
                recordAnswer(name, answer, next, nowMs);
            }
        }
    }

    /** The rest of {@link #recordChangedAnswers}: the asked topics that neither changed nor came with partitions. */
    private void recordOtherAnswers(RefreshRequest request, RefreshResponse response, Cluster next,
                                    Set<String> changed, long nowMs) {
        for (String name : request.topics()) {
            TopicMetadata answer = response.topics().get(name);
            if (!describes(answer) && !changed.contains(name)) {
                recordAnswer(name, answer, next, nowMs);
            }
        }
    }

    /** True when the answer for a topic came with partitions (not only an error, and not missing). */
    private static boolean describes(TopicMetadata answer) {
        return answer != null && answer.partitionCount() > 0;
    }

    private void recordAnswer(String name, TopicMetadata answer, Cluster next, long nowMs) {
        TopicEntry e = subscriptions.get(name);
        if (e != null) {
            e.recordError(answer == null ? 0 : answer.errorCode());
            if (next.topic(name) != null) {
                e.known = true;
                if (answer != null) {
                    e.refreshedMs = nowMs;
                }
            }
        }
    }

    /** Notes which of the asked and changed topics lack a leader somewhere (refreshed on their own backoff). */
    private void trackLeaderless(Set<String> asked, Set<String> changed, Cluster next) {
        for (String name : asked) {
            trackLeaderless(name, next);
        }
        for (String name : changed) {
            if (!asked.contains(name)) { // most changed topics were asked: each once
                trackLeaderless(name, next);
            }
        }
        if (leaderlessRefresh) {
            for (String name : leaderless) {
                machine.addRefresh(name, true);
            }
        }
    }

    private void trackLeaderless(String name, Cluster next) {
        TopicMetadata t = next.topic(name);
        if (t != null && t.availablePartitions().size() < t.partitionCount()) {
            leaderless.add(name);
        } else {
            leaderless.remove(name);
        }
    }

    /**
     * Wakes the waiters of the changed topics (and of any new version). Then, if it woke anyone, gives up the CPU
     * once: Linux tends to queue a woken thread on its waker's CPU, where it would wait behind the bookkeeping that
     * follows (bench P6: 0.5-0.8 ms from the wake to the waiter's return on an otherwise idle 2-CPU machine).
     */
    private void wakeWaiters(Set<String> topics) {
        int woken = versionWaiters.wakeAll();
        for (String name : topics) {
            TopicEntry e = subscriptions.get(name);
            if (e != null) {
                woken += e.waiters.wakeAll();
            }
        }
        if (woken > 0) {
            Thread.yield();
        }
    }

    /** Sender: the request failed (disconnect, timeout, unusable answer); it is retried after backoff. */
    public void onFailure(RefreshRequest request, String reason, long nowMs) {
        counters.requestsFailed.incrementAndGet();
        lastFailure = reason;
        machine.onFailure(request, nowMs, snapshot.topicNames(), reason);
    }

    /**
     * Sender: an error no retry fixes by itself (authentication, unsupported version). Every waiter gets it at once;
     * new waits fail fast with it until an answer arrives again.
     *
     * @param request the request it ended, or null when none was in flight
     */
    public void onFatal(RefreshRequest request, Throwable error, long nowMs) {
        Objects.requireNonNull(error, "error");
        Throwable previous = fatal;
        fatal = error;
        if (request != null) {
            onFailure(request, error.toString(), nowMs);
        } else {
            lastFailure = error.toString();
        }
        if (previous == null || !previous.toString().equals(error.toString())) {
            log.error("[{}] metadata unavailable: {}", clientId, error.toString());
        } else {
            log.debug("[{}] metadata still unavailable: {}", clientId, error.toString());
        }
        wakeEveryWaiter();
    }

    /**
     * Sender: evidence of a connection problem (refused, DNS, TLS) while no request could even go out; shown in
     * timeout messages until an answer arrives.
     */
    public void recordConnectionProblem(String summary) {
        if (summary != null) {
            lastFailure = summary;
        }
    }

    /** Sender: the connection to {@code nodeId} dropped; topics it leads are refreshed. */
    public void onNodeDisconnected(int nodeId, long nowMs) {
        Set<String> topics = new LinkedHashSet<>();
        for (PartitionMetadata p : snapshot.partitionsOnNode(nodeId)) {
            topics.add(p.topic());
        }
        for (String t : topics) {
            if (subscriptions.get(t) != null) {
                machine.addRefresh(t, false);
            }
        }
    }

    private void drainCommands(long nowMs) {
        if (fullRequested.getAndSet(false)) {
            machine.requestFull("requestUpdate()");
        }
        List<LeaderHint> hints = null;
        Object command;
        while ((command = commands.relaxedPoll()) != null) {
            if (command instanceof TopicEntry) {
                takeTopicRequest((TopicEntry) command);
            } else if (command instanceof LeaderHint) {
                if (hints == null) {
                    hints = new ArrayList<>();
                }
                hints.add((LeaderHint) command);
            }
        }
        if (hints != null) {
            applyHints(hints);
        }
    }

    private void takeTopicRequest(TopicEntry e) {
        e.refreshRequested.set(false);
        if (e.removed) {
            return;
        }
        if (snapshot.topic(e.name) != null) {
            machine.addRefresh(e.name, false);
        } else {
            machine.addNew(e.name, !e.asked);
        }
    }

    private void applyHints(List<LeaderHint> hints) {
        Cluster before = snapshot;
        LeaderHints batch = new LeaderHints(before);
        for (LeaderHint h : hints) {
            if (batch.apply(h)) {
                counters.leaderHintsApplied.incrementAndGet();
            } else {
                counters.leaderHintsIgnored.incrementAndGet();
                TopicEntry e = subscriptions.get(h.topic);
                if (e != null && batch.wantsRefresh(h)) {
                    machine.addRefresh(h.topic, false);
                }
            }
        }
        if (batch.isEmpty()) {
            return;
        }
        snapshot = before.apply(batch.delta());
        wakeWaiters(batch.topics());
    }

    private void expireIdleTopics(long nowMs) {
        if (nowMs - lastSweepMs < EXPIRY_SWEEP_INTERVAL_MS) {
            return;
        }
        lastSweepMs = nowMs;
        List<TopicEntry> expired = subscriptions.expire(ticker.nanoTime(), maxIdleNs);
        if (expired.isEmpty()) {
            return;
        }
        ClusterDelta.Builder delta = ClusterDelta.builder();
        Map<String, Boolean> names = new HashMap<>();
        for (TopicEntry e : expired) {
            machine.forget(e.name);
            merger.forget(e.name);
            leaderless.remove(e.name);
            names.put(e.name, Boolean.TRUE);
            delta.removeTopic(e.name);
        }
        counters.topicsExpired.addAndGet(expired.size());
        snapshot = snapshot.apply(delta.build());
        log.debug("[{}] {} idle topics expired: {}", clientId, expired.size(), names.keySet());
    }
}
