package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.Ticker;

import java.util.Objects;
import java.util.Set;

/**
 * What the manager's rooms share: the published snapshot and what the sender learned beside it (fatal error, last
 * failure, cluster id change, ages), read by the application's waits ({@link ApplicationWaits}) and written by the
 * sender ({@link AnswerBook}, {@link CommandInbox}).
 *
 * <p>{@link MetadataManager} extends this class, so that its cache-hit path reads {@link #snapshot} as a field of the
 * object the caller holds - one volatile read, no extra hop - while each room holds the same object as its
 * {@code ManagerState}. Fields are package-private: the rooms are this package.
 *
 * <p>Concurrency: the volatile fields are written by the sender thread only (and {@link #closed} by
 * {@link MetadataManager#close()}), read by any thread. The final fields are thread-safe objects.
 */
abstract class ManagerState {
    final String clientId;
    final Ticker ticker;
    final boolean allowAutoCreateTopics;
    final Counters counters = new Counters();
    final Subscriptions subscriptions;
    final EvidenceRecorder connections = new EvidenceRecorder();
    /** Threads waiting for a version past theirs ({@code awaitUpdate}). */
    final WaitQueue versionWaiters = new WaitQueue();
    /** Ticker ms when the manager was made: what the metadata age counts from before the first full answer. */
    final long startedMs;

    volatile Cluster snapshot = Cluster.empty();
    volatile boolean closed;
    volatile Throwable fatal;
    volatile String lastFailure;
    volatile String previousClusterId;
    volatile long clusterIdChangedNs = Long.MIN_VALUE;
    /** The ticker's time at the sender's last poll: the usage stamp of a cache hit (idle expiry is coarse anyway). */
    volatile long coarseNowNs;
    /** Sender-written: ticker ms of the last applied answer to a FULL request, or {@link TopicEntry#NEVER_MS}. */
    volatile long lastFullRefreshMs = TopicEntry.NEVER_MS;

    ManagerState(MetadataConfig config, Ticker ticker) {
        this.clientId = config.clientId();
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.allowAutoCreateTopics = config.allowAutoCreateTopics();
        this.subscriptions = new Subscriptions(config.maxTopics(), counters);
        this.coarseNowNs = ticker.nanoTime();
        this.startedMs = ticker.milliTime();
    }

    /** The diagnosis of a wait that ends now without an answer (or with a refusal). Any thread. */
    final Diagnosis diagnose(String topic, int partition, long budgetMs, TopicEntry e, Deadline deadline) {
        return Diagnoser.diagnose(facts(topic, partition, budgetMs, e, deadline));
    }

    /** What a diagnosis is decided from, as recorded now. */
    final Diagnoser.Facts facts(String topic, int partition, long budgetMs, TopicEntry e, Deadline deadline) {
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
        return f;
    }

    /**
     * Sender: wakes the waiters of these topics (and of any new version). Then, if it woke anyone, gives up the CPU
     * once: Linux tends to queue a woken thread on its waker's CPU, where it would wait behind the bookkeeping that
     * follows (bench P6: 0.5-0.8 ms from the wake to the waiter's return on an otherwise idle 2-CPU machine).
     */
    final void wakeWaiters(Set<String> topics) {
        int woken = versionWaiters.wakeAll(ticker);
        for (String name : topics) {
            TopicEntry e = subscriptions.get(name);
            if (e != null) {
                woken += e.waiters.wakeAll(ticker);
            }
        }
        if (woken > 0) {
            Thread.yield();
        }
    }

    /** Wakes every parked waiter so that it re-checks (close, fatal error). */
    final void releaseEveryWaiter() {
        versionWaiters.wakeAll(ticker);
        subscriptions.wakeAll(ticker);
    }
}
