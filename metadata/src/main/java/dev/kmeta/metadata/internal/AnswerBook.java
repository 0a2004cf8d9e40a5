package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.ClusterDelta;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.MetadataConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The sender's answer bookkeeping: what each request, answer, failure, disconnect and idle sweep does to the
 * snapshot, the subscriptions and the {@link RefreshStateMachine}. It merges an answer ({@link ResponseMerger}),
 * publishes the next snapshot, wakes the waiters of the topics that changed, and records what the answer said of each
 * asked topic (errors for diagnoses, ages), which topics still lack leaders, and which unanswered waits to ask again.
 *
 * <p>Concurrency: the sender thread only. It writes the shared state through its {@link ManagerState.Publisher}
 * (the snapshot, the failure, the cluster id change, the full answer's time), which application threads read.
 */
final class AnswerBook {
    private static final Logger log = LoggerFactory.getLogger(MetadataManager.class);
    private static final long EXPIRY_SWEEP_INTERVAL_MS = 1_000;

    private final ManagerState.Publisher publisher;
    private final RefreshStateMachine machine;
    private final ResponseMerger merger;
    private final long maxIdleNs;
    private final boolean leaderlessRefresh;
    private final Set<String> leaderless = new HashSet<>();
    private final StaleTopics stale;
    private long lastSweepMs = Long.MIN_VALUE / 4;

    AnswerBook(ManagerState.Publisher publisher, RefreshStateMachine machine, MetadataConfig config) {
        this.publisher = publisher;
        this.machine = machine;
        this.merger = new ResponseMerger(config.epochRewindAcceptCount());
        this.maxIdleNs = config.metadataMaxIdleMs() * 1_000_000L;
        this.leaderlessRefresh = config.leaderlessRefreshMs() > 0;
        this.stale = new StaleTopics(config.maxStalenessMs());
    }

    /** The staleness target's look, when due: asks for the stale topics; ms until the next look. */
    long refreshStaleTopics(long nowMs) {
        return stale.check(nowMs, publisher.snapshot(), publisher.subscriptions().all(), machine, publisher.counters());
    }

    /** The next request if one is due now (moving to IN_FLIGHT), else null; its topics are marked as asked. */
    RefreshRequest beginRefresh(long nowMs) {
        if (publisher.isClosed() || machine.timeToNextUpdate(nowMs) > 0) {
            return null;
        }
        RefreshRequest request = machine.begin(nowMs, publisher.subscriptions().names(),
                publisher.allowAutoCreateTopics());
        for (String topic : request.topics()) {
            TopicEntry e = publisher.subscriptions().get(topic);
            if (e != null) {
                e.asked = true;
            }
        }
        publisher.counters().requestsSent.incrementAndGet();
        return request;
    }

    /** The answer to {@code request} arrived: merge it, publish, wake whoever it concerns, then the bookkeeping. */
    void onResponse(RefreshRequest request, RefreshResponse response, long nowMs) {
        Cluster before = publisher.snapshot();
        ResponseMerger.Result result = merger.merge(before, response,
                name -> publisher.subscriptions().get(name) != null);
        Cluster next = usable(request, before, result, nowMs);
        if (next == null) {
            return;
        }
        noteClusterIdChange(before, next, result);
        recordChangedAnswers(request, response, next, result.changedTopics, nowMs);
        publish(request, next, result, nowMs);
        // Wake first, then the sender's own bookkeeping: nothing below is what a woken waiter reads, and with 1,000
        // topics asked it is most of this call (bench P6). Only the topics whose state changed (appeared, moved,
        // vanished, refused): a waiter whose topic the answer asked for but left as it was would wake, find nothing
        // and park again - with 1,000 missing topics in one request, a herd of 999 on every answer. Unanswered waits
        // are re-asked by retryUnansweredWaits. (A thread woken here may see the state machine still IN_FLIGHT for
        // the few microseconds until onSuccess below; whatever it asks goes through the command queue either way.)
        publisher.wakeWaiters(result.changedTopics);
        recordOtherAnswers(request, response, next, result.changedTopics, nowMs);
        WorldChanges.log(log, publisher.clientId(), before, next, result, publisher.counters());
        trackLeaderless(request.topics(), result.changedTopics, next);
        machine.newTopicsAnswered(request.topics(), next);
        retryUnansweredWaits(request, next, result.changedTopics);
        machine.onSuccess(request, isNews(before, next, result), nowMs);
    }

    /** The next snapshot, or null when the answer is not believed (no brokers) or not applicable: a failure then. */
    private Cluster usable(RefreshRequest request, Cluster before, ResponseMerger.Result result, long nowMs) {
        if (result == null) {
            publisher.counters().responsesRejected.incrementAndGet();
            onFailure(request, "the answer listed no brokers", nowMs);
            return null;
        }
        try {
            return before.apply(result.delta);
        } catch (IllegalArgumentException bad) {
            publisher.counters().responsesRejected.incrementAndGet();
            onFailure(request, "unusable answer: " + bad.getMessage(), nowMs);
            return null;
        }
    }

    private void noteClusterIdChange(Cluster before, Cluster next, ResponseMerger.Result result) {
        if (result.clusterIdChanged) {
            publisher.clusterIdChanged(before.clusterId());
            JfrEvents.recordClusterIdChange(publisher.clientId(), before.clusterId(), next.clusterId());
        }
    }

    /**
     * Publishes the next snapshot, after what a reader of it must see with it: the metadata age of a full answer (the
     * per-topic ages were recorded just before), the cleared failure, the counters.
     */
    private void publish(RefreshRequest request, Cluster next, ResponseMerger.Result result, long nowMs) {
        publisher.counters().responsesApplied.incrementAndGet();
        publisher.counters().recordLatency(Math.max(0, nowMs - machine.inFlightSinceMs()));
        publisher.counters().staleEpochsRejected.addAndGet(result.staleEpochsRejected);
        publisher.publishAnswer(next);
    }

    /**
     * News is what a producer routes by: topics, brokers, the cluster id. Not the controller id: KRaft brokers report
     * a random live broker there, a different one from answer to answer on a multi-broker cluster, and taking that
     * for news reset the backoff on most answers (issue 14: ~5 requests/s for a missing partition).
     */
    private static boolean isNews(Cluster before, Cluster next, ResponseMerger.Result result) {
        return changedAnyTopic(result.changedTopics, before, next) || result.clusterIdChanged
                || !next.nodes().equals(before.nodes());
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
            TopicEntry e = publisher.subscriptions().get(name);
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
     * ages) and, for a full answer, the metadata age, before the snapshot is published: a reader of the new version
     * sees the ages it brought, and a waiter it wakes (its topic changed) sees what it said of that topic. The other
     * asked topics - left as they were, with nothing but an error, 999 of them when 1,000 missing topics were asked
     * (bench P6) - wait until after the wake.
     */
    private void recordChangedAnswers(RefreshRequest request, RefreshResponse response, Cluster next,
                                      Set<String> changed, long nowMs) {
        if (request.isFull()) {
            publisher.fullAnswerApplied(nowMs);
        }
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
        TopicEntry e = publisher.subscriptions().get(name);
        if (e != null) {
            short error = answer == null ? 0 : answer.errorCode();
            e.recordError(error);
            e.recordExistence(showsExistence(answer), error, nowMs);
            if (next.topic(name) != null) {
                e.known = true;
                if (describes(answer)) { // an error alone (LEADER_NOT_AVAILABLE...) left the old data: not fresher
                    e.refreshedMs = nowMs;
                }
            }
        }
    }

    /**
     * True when an answer shows that the topic exists: it came with partitions, or with its topic id (an error such
     * as LEADER_NOT_AVAILABLE while a new topic's partitions are being placed).
     */
    private static boolean showsExistence(TopicMetadata answer) {
        return answer != null && answer.errorCode() != ResponseMerger.UNKNOWN_TOPIC_OR_PARTITION
                && (answer.partitionCount() > 0 || answer.topicId() != null);
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

    /** The request failed (disconnect, timeout, unusable answer); it is retried after backoff. */
    void onFailure(RefreshRequest request, String reason, long nowMs) {
        publisher.counters().requestsFailed.incrementAndGet();
        publisher.failed(reason);
        machine.onFailure(request, nowMs, publisher.snapshot().topicNames(), reason);
    }

    /** An error no retry fixes by itself; see {@link MetadataManager#onFatal}. */
    void onFatal(RefreshRequest request, Throwable error, long nowMs) {
        Objects.requireNonNull(error, "error");
        Throwable previous = publisher.fail(error);
        if (request != null) {
            onFailure(request, error.toString(), nowMs);
        } else {
            publisher.failed(error.toString());
        }
        if (previous == null || !previous.toString().equals(error.toString())) {
            log.error("[{}] metadata unavailable: {}", publisher.clientId(), error.toString());
        } else {
            log.debug("[{}] metadata still unavailable: {}", publisher.clientId(), error.toString());
        }
        publisher.releaseEveryWaiter();
    }

    /** The connection to {@code nodeId} dropped: the subscribed topics it leads are refreshed. */
    void onNodeDisconnected(int nodeId) {
        Set<String> topics = new LinkedHashSet<>();
        for (PartitionMetadata p : publisher.snapshot().partitionsOnNode(nodeId)) {
            topics.add(p.topic());
        }
        for (String t : topics) {
            if (publisher.subscriptions().get(t) != null) {
                machine.addRefresh(t, false);
            }
        }
    }

    /** At most once a second: drops the topics nobody used for {@code metadata.max.idle.ms} from everything. */
    void expireIdleTopics(long nowMs) {
        if (nowMs - lastSweepMs < EXPIRY_SWEEP_INTERVAL_MS) {
            return;
        }
        lastSweepMs = nowMs;
        List<TopicEntry> expired = publisher.subscriptions().expire(publisher.ticker().nanoTime(), maxIdleNs,
                publisher.ticker());
        if (expired.isEmpty()) {
            return;
        }
        ClusterDelta.Builder delta = ClusterDelta.builder();
        Set<String> names = new HashSet<>();
        for (TopicEntry e : expired) {
            machine.forget(e.name);
            merger.forget(e.name);
            leaderless.remove(e.name);
            names.add(e.name);
            delta.removeTopic(e.name);
        }
        publisher.counters().topicsExpired.addAndGet(expired.size());
        publisher.publish(publisher.snapshot().apply(delta.build()));
        log.debug("[{}] {} idle topics expired: {}", publisher.clientId(), expired.size(), names);
    }
}
