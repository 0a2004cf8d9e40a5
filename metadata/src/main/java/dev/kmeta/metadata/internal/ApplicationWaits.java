package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataFatalException;
import dev.kmeta.metadata.MetadataInterruptedException;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.TopicException;

import dev.kmeta.metadata.PrefetchResult;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import static dev.kmeta.metadata.MetadataClient.ANY_PARTITION;

/**
 * The application's waits past a cache miss: for a version ({@code awaitUpdate}) or for a topic or partition
 * ({@code awaitTopic}, {@code awaitLeader}, {@code subscribe}): subscribe, ask the sender through the
 * {@link CommandInbox}, park on the topic's (or the version's) {@link WaitQueue} until the sender publishes what was
 * asked, and end with the snapshot, a refusal, a fatal error, close, an interrupt or a diagnosed timeout. The cache
 * hit itself is {@link MetadataManager}'s.
 *
 * <p>Concurrency: any number of application threads; no lock. Lost wake-ups are ruled out by {@link WaitQueue}'s
 * protocol: a waiter queues itself before it re-reads the snapshot.
 */
final class ApplicationWaits {
    private final ManagerState.View view;
    private final CommandInbox inbox;

    ApplicationWaits(ManagerState.View view, CommandInbox inbox) {
        this.view = view;
        this.inbox = inbox;
    }

    /** Until the snapshot's version is past {@code lastVersion}; see {@link MetadataManager#awaitUpdate}. */
    void awaitUpdate(int lastVersion, Deadline deadline) {
        Objects.requireNonNull(deadline, "deadline");
        long startNs = view.ticker().nanoTime();
        view.counters().waits.increment();
        WaitEvent event = JfrEvents.startWait();
        String outcome = JfrEvents.ANSWERED;
        boolean parked = false;
        view.counters().waitersNow.increment();
        try {
            while (view.snapshot().version() <= lastVersion) {
                throwIfUnusable();
                long remainingNs = deadline.remainingNs();
                if (remainingNs <= 0) {
                    throw versionTimeout(lastVersion, deadline);
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw interrupted("a metadata version past " + lastVersion);
                }
                parked = true;
                view.parkForVersion(deadline.ticker(), remainingNs,
                        () -> view.snapshot().version() <= lastVersion && !view.isClosed() && view.fatal() == null);
            }
        } catch (RuntimeException e) {
            outcome = JfrEvents.outcomeOf(e);
            throw e;
        } finally {
            view.counters().waitersNow.decrement();
            view.counters().waitTimeNsTotal.add(view.ticker().nanoTime() - startNs);
            if (parked || !JfrEvents.ANSWERED.equals(outcome)) {
                JfrEvents.commitWait(event, view.clientId(), null, ANY_PARTITION, outcome);
            }
        }
    }

    private MetadataTimeoutException versionTimeout(int lastVersion, Deadline deadline) {
        long maxBlockMs = deadline.budgetMs();
        view.counters().waitTimeouts.increment();
        Diagnosis d = view.diagnose(null, ANY_PARTITION, maxBlockMs, null, deadline);
        view.counters().recordTimeout(d.cause());
        JfrEvents.recordTimeout(view.clientId(), null, ANY_PARTITION, maxBlockMs, d);
        return Failures.make().timeout("Metadata version did not move past " + lastVersion
                + " within " + maxBlockMs + " ms" + lastFailureSuffix() + " [" + d.message() + "]", d);
    }

    /** {@code subscribe} past a miss: the topic is subscribed and asked for (one request however many callers). */
    void subscribe(String topic) {
        Objects.requireNonNull(topic, "topic");
        throwIfUnusable();
        TopicEntry e = view.subscriptions().subscribe(topic, view.ticker().nanoTime());
        e.touch(view.ticker().nanoTime());
        inbox.requestTopic(e);
    }

    /** {@code subscribeAll}: every topic subscribed, the unknown ones asked for in one command. */
    void subscribeAll(Collection<String> topics) {
        throwIfUnusable();
        long nowNs = view.ticker().nanoTime();
        List<TopicEntry> unknown = new ArrayList<>();
        for (String topic : distinct(topics)) {
            TopicEntry e = view.subscriptions().subscribe(topic, nowNs);
            e.touch(nowNs);
            if (!known(view.snapshot(), topic)) {
                unknown.add(e);
            }
        }
        inbox.requestTopics(unknown);
    }

    /**
     * {@code prefetch}: every topic subscribed, the unknown ones asked for in one command (so in one request), then one
     * wait for all of them within the deadline. The thread parks on the first topic still missing: the answer that
     * brings the topics wakes it (targeted, as any topic wait), and a topic still missing is re-asked by the sender as
     * for any waited-for topic, all of them in one request again.
     */
    PrefetchResult prefetch(Collection<String> topics, Deadline deadline) {
        Objects.requireNonNull(deadline, "deadline");
        List<String> names = distinct(topics);
        throwIfUnusable();
        long startNs = view.ticker().nanoTime();
        List<TopicEntry> entries = new ArrayList<>(names.size());
        try {
            for (String topic : names) {
                TopicEntry e = view.subscriptions().subscribe(topic, startNs);
                e.activeWaiters.incrementAndGet(); // kept from idle expiry, and re-asked by the sender, while we wait
                entries.add(e);
                e.touch(startNs);
            }
            List<TopicEntry> missing = missing(view.snapshot(), entries);
            if (missing.isEmpty()) {
                return result(view.snapshot(), entries, deadline, false, startNs);
            }
            view.counters().waits.increment();
            view.counters().waitersNow.increment();
            try {
                inbox.requestTopics(missing);
                return awaitAll(entries, deadline, startNs);
            } finally {
                view.counters().waitersNow.decrement();
                view.counters().waitTimeNsTotal.add(view.ticker().nanoTime() - startNs);
            }
        } finally {
            for (TopicEntry e : entries) {
                e.activeWaiters.decrementAndGet();
            }
        }
    }

    private PrefetchResult awaitAll(List<TopicEntry> entries, Deadline deadline, long startNs) {
        for (;;) {
            Cluster c = view.snapshot();
            List<TopicEntry> missing = missing(c, entries);
            if (missing.isEmpty()) {
                return result(c, entries, deadline, false, startNs);
            }
            throwIfUnusable();
            long remainingNs = deadline.remainingNs();
            if (remainingNs <= 0) {
                return result(c, entries, deadline, true, startNs);
            }
            if (Thread.currentThread().isInterrupted()) {
                throw interrupted(missing.size() + " topic(s) of a prefetch, " + missing.get(0).name + " first");
            }
            TopicEntry first = missing.get(0);
            view.park(first.waiters, deadline.ticker(), remainingNs,
                    () -> view.snapshot() == c && !view.isClosed() && view.fatal() == null);
        }
    }

    /** What the prefetch got; the topics not got diagnosed as a wait that ends now ({@code timedOut}) would be. */
    private PrefetchResult result(Cluster c, List<TopicEntry> entries, Deadline deadline, boolean timedOut,
                                  long startNs) {
        List<String> fetched = new ArrayList<>();
        Map<String, Diagnosis> missing = new LinkedHashMap<>();
        for (TopicEntry e : entries) {
            if (known(c, e.name)) {
                fetched.add(e.name);
            } else if (refused(c, e.name) || timedOut) {
                missing.put(e.name, view.diagnose(e.name, ANY_PARTITION, timedOut ? deadline.budgetMs() : 0, e,
                        timedOut ? deadline : null));
            }
        }
        long elapsedMs = (view.ticker().nanoTime() - startNs) / 1_000_000L;
        return PrefetchResult.of(c, fetched, missing, elapsedMs);
    }

    /** The entries whose topic the snapshot neither has nor refuses, in order. */
    private static List<TopicEntry> missing(Cluster c, List<TopicEntry> entries) {
        List<TopicEntry> missing = new ArrayList<>();
        for (TopicEntry e : entries) {
            if (!known(c, e.name) && !refused(c, e.name)) {
                missing.add(e);
            }
        }
        return missing;
    }

    private static boolean known(Cluster c, String topic) {
        TopicMetadata t = c.topic(topic);
        return t != null && t.partitionCount() > 0;
    }

    private static boolean refused(Cluster c, String topic) {
        return c.unauthorizedTopics().contains(topic) || c.invalidTopics().contains(topic);
    }

    private static List<String> distinct(Collection<String> topics) {
        Objects.requireNonNull(topics, "topics");
        Set<String> names = new LinkedHashSet<>();
        for (String topic : topics) {
            names.add(Objects.requireNonNull(topic, "a topic name is null"));
        }
        return List.copyOf(names);
    }

    /** The wait of {@code awaitTopic}/{@code awaitLeader} past a miss; returns the snapshot that answers. */
    Cluster awaitTopic(String topic, int partition, Deadline deadline) {
        return awaitTopic(topic, partition, deadline, false);
    }

    /**
     * {@link #awaitTopic(String, int, Deadline)}; with {@code failIfReplicasOffline}
     * ({@code kmeta.metadata.leaderless.partition=fail}, issue 39), it fails as soon as a snapshot shows the partition
     * without a leader and every replica on a broker the cluster reports offline, instead of waiting for a leader.
     */
    Cluster awaitTopic(String topic, int partition, Deadline deadline, boolean failIfReplicasOffline) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(deadline, "deadline");
        if (partition < ANY_PARTITION) {
            throw new IllegalArgumentException("partition must be >= 0 or ANY_PARTITION: " + partition);
        }
        throwIfUnusable();
        long startNs = view.ticker().nanoTime();
        WaitEvent event = JfrEvents.startWait();
        String outcome = JfrEvents.ANSWERED;
        boolean parked = false;
        TopicEntry e = view.subscriptions().subscribe(topic, startNs);
        e.activeWaiters.incrementAndGet();
        view.counters().waits.increment();
        view.counters().waitersNow.increment();
        boolean asked = false;
        try {
            for (;;) {
                Cluster c = view.snapshot();
                if (answer(c, topic, partition)) {
                    e.touch(view.ticker().nanoTime());
                    return c;
                }
                throwIfUnusable();
                if (failIfReplicasOffline && partition >= 0) {
                    PartitionMetadata p = c.partition(topic, partition);
                    if (p != null && p.everyReplicaOffline()) {
                        view.counters().waitTimeouts.increment();
                        throw replicasOffline(topic, partition, deadline, e);
                    }
                }
                if (e.removed) {
                    e.activeWaiters.decrementAndGet();
                    e = view.subscriptions().subscribe(topic, view.ticker().nanoTime());
                    e.activeWaiters.incrementAndGet();
                    asked = false;
                }
                // Ask before looking at the budget: a zero-budget send must still make the topic known for the next.
                // But not again once this wait has asked and its budget is spent: waking the sender takes the JDK
                // selector's wakeup lock, and a holder waiting for a CPU (the sender, another waker) would keep this
                // timed-out wait past its deadline.
                e.touch(view.ticker().nanoTime());
                if (!asked || !deadline.isExpired()) {
                    inbox.requestTopic(e);
                    asked = true;
                }
                long remainingNs = deadline.remainingNs();
                if (remainingNs <= 0) {
                    view.counters().waitTimeouts.increment();
                    throw timeout(topic, partition, deadline, e);
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw interrupted(partition == ANY_PARTITION ? "topic " + topic
                            : "partition " + partition + " of topic " + topic);
                }
                TopicEntry entry = e;
                parked = true;
                view.park(entry.waiters, deadline.ticker(), remainingNs,
                        () -> view.snapshot() == c && !view.isClosed() && view.fatal() == null && !entry.removed);
            }
        } catch (RuntimeException ex) {
            outcome = JfrEvents.outcomeOf(ex);
            throw ex;
        } finally {
            e.activeWaiters.decrementAndGet();
            view.counters().waitersNow.decrement();
            view.counters().waitTimeNsTotal.add(view.ticker().nanoTime() - startNs);
            if (parked || !JfrEvents.ANSWERED.equals(outcome)) {
                JfrEvents.commitWait(event, view.clientId(), topic, partition, outcome);
            }
        }
    }

    /** True when the snapshot answers; throws when the brokers refused the topic. */
    private boolean answer(Cluster c, String topic, int partition) {
        if (c.unauthorizedTopics().contains(topic)) {
            Diagnosis d = view.diagnose(topic, partition, 0, view.subscriptions().get(topic), null);
            throw Failures.make().topic(topic, TopicException.Reason.NOT_AUTHORIZED, "Not authorized to describe topic "
                    + topic + " (TOPIC_AUTHORIZATION_FAILED): grant Describe on it to this client's principal", d);
        }
        if (c.invalidTopics().contains(topic)) {
            throw Failures.make().topic(topic, TopicException.Reason.INVALID_TOPIC, "Invalid topic name '" + topic
                    + "' (INVALID_TOPIC_EXCEPTION)", null);
        }
        TopicMetadata t = c.topic(topic);
        return t != null && answers(t, partition);
    }

    /** True when the topic answers a wait for {@code partition}: has partitions, or has that one with a leader. */
    static boolean answers(TopicMetadata t, int partition) {
        if (partition == ANY_PARTITION) {
            return t.partitionCount() > 0;
        }
        PartitionMetadata p = t.partition(partition);
        return p != null && p.hasLeader();
    }

    /** The partition's failure in fail mode: kmeta's LEADER_NOT_AVAILABLE, at once. */
    private MetadataTimeoutException replicasOffline(String topic, int partition, Deadline deadline, TopicEntry e) {
        Diagnosis d = view.diagnose(topic, partition, deadline.budgetMs(), e, deadline);
        view.counters().recordTimeout(d.cause());
        return Failures.make().timeout("Partition " + partition + " of topic " + topic + " has no leader and every "
                + "replica is offline (kmeta.metadata.leaderless.partition=fail): " + d.cause() + ": " + d.seen()
                + ". Fix: " + d.fix(), d);
    }

    private MetadataTimeoutException timeout(String topic, int partition, Deadline deadline, TopicEntry e) {
        String what = partition == ANY_PARTITION ? "Topic " + topic
                : "Partition " + partition + " of topic " + topic;
        Diagnosis d = view.diagnose(topic, partition, deadline.budgetMs(), e, deadline);
        view.counters().recordTimeout(d.cause());
        JfrEvents.recordTimeout(view.clientId(), topic, partition, deadline.budgetMs(), d);
        return Failures.make().timeout(what + " not present in metadata after " + deadline.budgetMs()
                + " ms: " + d.cause() + ": " + d.seen() + ". Fix: " + d.fix(), d);
    }

    private String lastFailureSuffix() {
        String f = view.lastFailure();
        return f == null ? "" : " (last request failure: " + f + ")";
    }

    /** Throws when no wait can succeed now: the client is closed, or a fatal error holds until an answer arrives. */
    void throwIfUnusable() {
        if (view.isClosed()) {
            throw Failures.make().closed("The metadata client " + view.clientId() + " is closed");
        }
        Throwable f = view.fatal();
        if (f != null) {
            Diagnosis d = view.diagnose(null, ANY_PARTITION, 0, null, null);
            // The diagnosis's one line names the real problem (e.g. the TLS root cause: expired, untrusted, wrong
            // host name), where the wire's error alone often says only "SSL handshake failed".
            throw Failures.make().fatal("Metadata unavailable for client " + view.clientId() + ": " + d.cause()
                    + ": " + d.seen() + " (" + f + "). Fix: " + d.fix(), f, d);
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
}
