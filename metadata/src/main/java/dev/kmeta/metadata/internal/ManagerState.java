package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.Ticker;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * What the manager's rooms share: the published snapshot and what the sender learned beside it (fatal error, last
 * failure, cluster id change, ages). Its fields are private; a room reaches them through one of two narrow objects
 * with methods, made here once and handed out by {@link MetadataManager}'s constructor:
 * <ul>
 *   <li>{@link Publisher}, the sender's writes, for {@link AnswerBook} and {@link CommandInbox};</li>
 *   <li>{@link View}, read-only, for {@link ApplicationWaits}, {@link PartitionDiagnoses} and
 *       {@link MetadataAges}.</li>
 * </ul>
 * No room holds this class ({@code ManagerStateRoomsTest}).
 *
 * <p>{@link MetadataManager} extends this class, so that its cache hit reads the snapshot with {@link #snapshot()} -
 * a final method over a field of the object the caller holds: one volatile read, no hop, nothing allocated.
 *
 * <h2>Threading, field by field</h2>
 * The final fields are set here and are thread-safe objects. Each volatile field has one writer, named in its doc;
 * any thread reads it. Nothing here takes a lock.
 */
abstract class ManagerState {
    private final String clientId;
    private final Ticker ticker;
    private final boolean allowAutoCreateTopics;
    /** Lock-free adders and atomics: any thread. */
    private final Counters counters = new Counters();
    /** A concurrent map: application threads add, the sender expires; see {@link Subscriptions}. */
    private final Subscriptions subscriptions;
    /** Written by the sender (its connections), read by diagnoses on any thread; see {@link EvidenceRecorder}. */
    private final EvidenceRecorder connections = new EvidenceRecorder();
    /** Threads waiting for a version past theirs ({@code awaitUpdate}); a lock-free queue, see {@link WaitQueue}. */
    private final WaitQueue versionWaiters = new WaitQueue();
    /**
     * Threads waiting for any change of what they read - a new version, a connection outcome the evidence recorded,
     * close ({@link MetadataManager#parkUntilChange}): the KafkaProducer route's holds and first-request steer, whose
     * conditions read the evidence as well as the snapshot. Woken by the writer after it wrote what changed.
     */
    private final WaitQueue changeWaiters = new WaitQueue();
    /**
     * Run on the sender thread after the version waiters were woken ({@link MetadataManager#onNewVersion}): threads
     * that cannot park among them (the KafkaProducer route's network thread sleeps in its own selector). Any thread
     * adds and removes; the sender reads.
     */
    private final List<Runnable> versionListeners = new CopyOnWriteArrayList<>();
    /** Ticker ms when the manager was made: what the metadata age counts from before the first full answer. */
    private final long startedMs;

    /**
     * The published cluster. Written by the sender thread only ({@link Publisher}: an answer, a batch of leader hints,
     * an idle sweep), read by any thread. The volatile store publishes whatever the sender wrote before it (the
     * topics' recorded answers and ages, the cleared failure); the sender stores it before it wakes the waiters
     * ({@link WaitQueue}'s protocol).
     */
    private volatile Cluster snapshot = Cluster.empty();
    /** Written once by {@link #markClosed} (any thread), read by any thread; waiters are woken after it. */
    private volatile boolean closed;
    /**
     * The error no retry fixes, until an answer clears it. Written by the sender ({@link Publisher#fail},
     * {@link Publisher#publishAnswer}), read by the waits (fail fast) and diagnoses; waiters are woken after it is set.
     */
    private volatile Throwable fatal;
    /**
     * The last failed request or connection problem, shown in timeouts. Written by the sender
     * ({@link Publisher#failed}, cleared by {@link Publisher#publishAnswer}), read by the waits.
     */
    private volatile String lastFailure;
    /**
     * The cluster id before the last change, and when it changed (ticker ns; {@link Long#MIN_VALUE} = never). Written
     * by the sender ({@link Publisher#clusterIdChanged}) in that order before the snapshot that changed it; read by
     * diagnoses. Two volatiles, not one value: a diagnosis made while they change may see the id without the time.
     */
    private volatile String previousClusterId;
    private volatile long clusterIdChangedNs = Long.MIN_VALUE;
    /**
     * The ticker's time at the sender's last poll: the usage stamp of a cache hit (idle expiry is coarse anyway).
     * Written by the sender ({@link Publisher#senderPolls}), read by the cache hit.
     */
    private volatile long coarseNowNs;
    /**
     * Ticker ms of the last applied answer to a FULL request, or {@link TopicEntry#NEVER_MS}. Written by the sender
     * ({@link Publisher#fullAnswerApplied}) before the snapshot that answer brings; read by {@link MetadataAges}.
     */
    private volatile long lastFullRefreshMs = TopicEntry.NEVER_MS;

    private final Publisher publisher;
    private final View view;

    ManagerState(MetadataConfig config, Ticker ticker) {
        this.clientId = config.clientId();
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.allowAutoCreateTopics = config.allowAutoCreateTopics();
        this.subscriptions = new Subscriptions(config.maxTopics(), counters);
        this.coarseNowNs = ticker.nanoTime();
        this.startedMs = ticker.milliTime();
        this.publisher = new Publisher(this);
        this.view = new View(this);
        connections.onChange(this::wakeChangeWaiters);
    }

    /** Wakes the threads parked for any change (the evidence's writer, the version waiters' waker, close). */
    final void wakeChangeWaiters() {
        if (!changeWaiters.isEmpty()) {
            changeWaiters.wakeAll(ticker);
        }
    }

    /**
     * Parks the calling thread for at most {@code nanos} on the manager's ticker until a change wakes it, unless
     * {@code stillWaiting} - checked once queued - says no.
     */
    final void parkForChange(long nanos, BooleanSupplier stillWaiting) {
        changeWaiters.park(ticker, this, nanos, stillWaiting);
    }

    // ---------------------------------------------------------------- the facade's (MetadataManager's)

    /** The published snapshot: one volatile read (the cache hit's). Any thread. */
    final Cluster snapshot() {
        return snapshot;
    }

    /** The sender's last poll time, ticker ns: a cache hit's usage stamp. Any thread. */
    final long coarseNowNs() {
        return coarseNowNs;
    }

    /** True once {@link #markClosed} was called. Any thread. (Not final: the manager makes it public.) */
    boolean isClosed() {
        return closed;
    }

    /** Marks the manager closed; false when it already was. Any thread; the caller then wakes every waiter. */
    final boolean markClosed() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    final String clientId() {
        return clientId;
    }

    /** The manager's clock. (Not final, as the next two: the manager makes them public.) */
    Ticker ticker() {
        return ticker;
    }

    Counters counters() {
        return counters;
    }

    final Subscriptions subscriptions() {
        return subscriptions;
    }

    EvidenceRecorder connections() {
        return connections;
    }

    /** The sender's writes, for the rooms on the sender's side. */
    final Publisher publisher() {
        return publisher;
    }

    /** The read-only view, for the rooms that read. */
    final View view() {
        return view;
    }

    /** Wakes every parked waiter so that it re-checks (close, fatal error). */
    final void releaseEveryWaiter() {
        versionWaiters.wakeAll(ticker);
        subscriptions.wakeAll(ticker);
        wakeChangeWaiters();
        runVersionListeners();
    }

    /** Adds a listener run after every wake of the version waiters; returns what removes it. Any thread. */
    final Runnable addVersionListener(Runnable listener) {
        Objects.requireNonNull(listener, "listener");
        versionListeners.add(listener);
        return () -> versionListeners.remove(listener);
    }

    private void runVersionListeners() {
        for (Runnable listener : versionListeners) {
            try {
                listener.run();
            } catch (RuntimeException e) { // a listener's failure must not stop the sender
                counters.listenerFailures.incrementAndGet();
            }
        }
    }

    /**
     * The sender's writes to the shared state - publishing a snapshot, setting and clearing the failure, noting a
     * cluster id change and the full answer's time - and waking the waiters after them. For {@link AnswerBook} and
     * {@link CommandInbox}.
     *
     * <p>Concurrency: the writes and wakes are for the sender thread only (one writer per field, so no
     * compare-and-set); each write is a volatile store that any thread may read at once. The accessors are for any
     * thread ({@link CommandInbox}'s posting methods count through {@link #counters}).
     */
    static final class Publisher {
        private final ManagerState s;

        private Publisher(ManagerState s) {
            this.s = s;
        }

        /** The published snapshot: what the sender builds the next one from. */
        Cluster snapshot() {
            return s.snapshot;
        }

        /** Publishes a snapshot that is no answer (leader hints, an idle sweep): the failure stays as it was. */
        void publish(Cluster next) {
            s.snapshot = next;
        }

        /** Publishes an applied answer: the fatal error and the last failure end, then the snapshot is stored. */
        void publishAnswer(Cluster next) {
            s.fatal = null;
            s.lastFailure = null;
            s.snapshot = next;
        }

        /** Sets the fatal error; returns the one before (null when none). The caller then releases every waiter. */
        Throwable fail(Throwable error) {
            Throwable previous = s.fatal;
            s.fatal = error;
            return previous;
        }

        /** The last request failure or connection problem, shown in timeouts until an answer arrives. */
        void failed(String reason) {
            s.lastFailure = reason;
        }

        /** The cluster id changed from {@code previousId}, now: before the snapshot that changed it is published. */
        void clusterIdChanged(String previousId) {
            s.previousClusterId = previousId;
            s.clusterIdChangedNs = s.ticker.nanoTime();
        }

        /** An answer to a FULL request was applied at {@code nowMs}: the metadata age restarts. */
        void fullAnswerApplied(long nowMs) {
            s.lastFullRefreshMs = nowMs;
        }

        /** The sender polls now: the cache hits' usage stamp moves to the ticker's time. */
        void senderPolls() {
            s.coarseNowNs = s.ticker.nanoTime();
        }

        boolean isClosed() {
            return s.closed;
        }

        /**
         * Wakes the waiters of these topics (and of any new version), after the snapshot they wait for was
         * published. Then, if it woke anyone, gives up the CPU once: Linux tends to queue a woken thread on its
         * waker's CPU, where it would wait behind the bookkeeping that follows (bench P6: 0.5-0.8 ms from the wake to
         * the waiter's return on an otherwise idle 2-CPU machine).
         */
        void wakeWaiters(Set<String> topics) {
            int woken = s.versionWaiters.wakeAll(s.ticker);
            s.wakeChangeWaiters();
            s.runVersionListeners();
            for (String name : topics) {
                TopicEntry e = s.subscriptions.get(name);
                if (e != null) {
                    woken += e.waiters.wakeAll(s.ticker);
                }
            }
            if (woken > 0) {
                Thread.yield();
            }
        }

        /** Wakes every parked waiter so that it re-checks (a fatal error). */
        void releaseEveryWaiter() {
            s.releaseEveryWaiter();
        }

        String clientId() {
            return s.clientId;
        }

        Ticker ticker() {
            return s.ticker;
        }

        boolean allowAutoCreateTopics() {
            return s.allowAutoCreateTopics;
        }

        Counters counters() {
            return s.counters;
        }

        Subscriptions subscriptions() {
            return s.subscriptions;
        }
    }

    /**
     * The shared state read-only - the snapshot, closed, the fatal error, the last failure, the ages - plus the
     * diagnosis decided from it and the parking of a wait. For {@link ApplicationWaits}, {@link PartitionDiagnoses}
     * and {@link MetadataAges}. (The subscriptions and counters it hands out are thread-safe objects of their own,
     * which the waits write: subscribing, counting.)
     *
     * <p>Concurrency: any thread; no lock; every read is a volatile read of a field the sender (or close) writes.
     */
    static final class View {
        private final ManagerState s;

        private View(ManagerState s) {
            this.s = s;
        }

        Cluster snapshot() {
            return s.snapshot;
        }

        boolean isClosed() {
            return s.closed;
        }

        /** The error no retry fixes, or null. */
        Throwable fatal() {
            return s.fatal;
        }

        /** The last request failure or connection problem since the last answer, or null. */
        String lastFailure() {
            return s.lastFailure;
        }

        /** Ticker ms of the last applied full answer, or {@link TopicEntry#NEVER_MS}. */
        long lastFullRefreshMs() {
            return s.lastFullRefreshMs;
        }

        /** Ticker ms when the manager was made. */
        long startedMs() {
            return s.startedMs;
        }

        /**
         * Parks the calling thread on {@code queue} for at most {@code nanos} on {@code ticker} unless
         * {@code stillWaiting} (checked once queued) says no; the manager is the blocker a thread dump shows.
         */
        void park(WaitQueue queue, Ticker ticker, long nanos, BooleanSupplier stillWaiting) {
            queue.park(ticker, s, nanos, stillWaiting);
        }

        /** {@link #park} on the version waiters' queue ({@code awaitUpdate}). */
        void parkForVersion(Ticker ticker, long nanos, BooleanSupplier stillWaiting) {
            s.versionWaiters.park(ticker, s, nanos, stillWaiting);
        }

        /** The diagnosis of a wait that ends now without an answer (or with a refusal). */
        Diagnosis diagnose(String topic, int partition, long budgetMs, TopicEntry e, Deadline deadline) {
            return Diagnoser.diagnose(facts(topic, partition, budgetMs, e, deadline));
        }

        /** What a diagnosis is decided from, as recorded now. */
        Diagnoser.Facts facts(String topic, int partition, long budgetMs, TopicEntry e, Deadline deadline) {
            Diagnoser.Facts f = new Diagnoser.Facts();
            f.snapshot = s.snapshot;
            f.topic = topic;
            f.partition = partition;
            f.budgetMs = budgetMs;
            f.entry = e;
            f.connections = s.connections;
            f.fatal = s.fatal;
            f.autoCreateAllowed = s.allowAutoCreateTopics;
            f.previousClusterId = s.previousClusterId;
            long changedNs = s.clusterIdChangedNs;
            long startNs = deadline == null ? 0 : deadline.deadlineNs() - budgetMs * 1_000_000L;
            f.clusterIdChangedDuringWait = changedNs != Long.MIN_VALUE && deadline != null && changedNs - startNs >= 0;
            if (deadline != null) {
                f.waitStartMs = startNs / 1_000_000L;
            }
            return f;
        }

        String clientId() {
            return s.clientId;
        }

        Ticker ticker() {
            return s.ticker;
        }

        Counters counters() {
            return s.counters;
        }

        Subscriptions subscriptions() {
            return s.subscriptions;
        }

        EvidenceRecorder connections() {
            return s.connections;
        }
    }
}
