package dev.kmeta.sender.internal;

import dev.kmeta.faketime.FakeTicker;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.TopicException;
import dev.kmeta.metadata.internal.MetadataManager;
import dev.kmeta.metadata.internal.RefreshRequest;
import dev.kmeta.metadata.internal.RefreshResponse;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataResponse;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

import static dev.kmeta.sender.internal.HostileChecks.check;
import java.time.Duration;

/**
 * Runs one {@link HostileWorld} script against a fresh {@link MetadataManager} on fake time, playing the sender
 * (translation through {@link ResponseTranslator} of real kafka-clients {@link MetadataResponse}s, then the manager's
 * driver methods) and the application threads (zero-budget waits, hints, invalidations, update requests), and checks
 * {@link HostileChecks}' invariants after every driver call. Single-threaded and deterministic: the same script gives
 * the same run. Not thread-safe.
 */
final class HostileRun {
    /** Topics a zero-budget probe re-asks for after every round, like a thread waiting for each of them. */
    private static final List<String> WATCHED = List.of("t0", "t1");

    /** What broke, at which action of the script. */
    record Failure(int step, String message) {
    }

    /** Totals over runs, to show the scripts reached every rule (a property test that reaches none proves nothing). */
    static final class Totals {
        long actions;
        long answersApplied;
        long answersRejected;
        long failures;
        long staleEpochsRejected;
        long rewindsAccepted;
        long clusterIdChanges;
        long topicIdChanges;
        long hintsApplied;
        long topicsExpired;
        long unauthorized;
        long releasedProbes;

        @Override
        public String toString() {
            return actions + " actions, " + answersApplied + " answers applied, " + answersRejected
                    + " rejected (no brokers), " + failures + " failed requests, " + staleEpochsRejected
                    + " stale epochs rejected, " + rewindsAccepted + " rewinds accepted, " + clusterIdChanges
                    + " cluster id changes, " + topicIdChanges + " topic id changes, " + hintsApplied
                    + " hints applied, " + topicsExpired + " topics expired, " + unauthorized
                    + " unauthorized marks, " + releasedProbes + " zero-budget waits answered";
        }
    }

    private final MetadataConfig config;
    private final List<HostileWorld.Action> script;
    private final FakeTicker ticker = new FakeTicker();
    private final MetadataManager manager;
    private final int rewindAcceptCount;
    /** Per "topic/partition": the last real epochs answers carried, newest last. */
    private final Map<String, Deque<Integer>> answered = new HashMap<>();
    private final Totals totals;
    private Cluster last;
    private boolean lastAnswerUntrusted;
    /** Called after every action, e.g. to check real waiting threads. */
    private Runnable afterEachAction = () -> { };

    HostileRun(MetadataConfig config, List<HostileWorld.Action> script, Totals totals) {
        this.config = config;
        this.script = script;
        this.totals = totals;
        this.manager = new MetadataManager(config, ticker);
        this.rewindAcceptCount = config.epochRewindAcceptCount();
        this.last = manager.fetch();
    }

    MetadataManager manager() {
        return manager;
    }

    FakeTicker ticker() {
        return ticker;
    }

    void afterEachAction(Runnable check) {
        this.afterEachAction = check;
    }

    /** Runs the script; the first broken invariant, or null. */
    Failure run() {
        for (int i = 0; i < script.size(); i++) {
            try {
                execute(script.get(i));
                afterEachAction.run();
                totals.actions++;
            } catch (AssertionError e) {
                return new Failure(i, e.getMessage());
            } catch (RuntimeException e) {
                return new Failure(i, "unexpected " + stackTrace(e));
            }
        }
        manager.close();
        totals.staleEpochsRejected += manager.counters().staleEpochsRejected();
        totals.hintsApplied += manager.counters().leaderHintsApplied();
        totals.topicsExpired += manager.counters().topicsExpired();
        totals.clusterIdChanges += manager.counters().clusterIdChanges();
        return null;
    }

    private void execute(HostileWorld.Action action) {
        if (action instanceof HostileWorld.Subscribe s) {
            probe(s.topic(), s.partition());
        } else if (action instanceof HostileWorld.Hint h) {
            manager.onLeaderHint(h.topic(), h.partition(), h.leaderId(), h.leaderEpoch(), h.endpoint());
        } else if (action instanceof HostileWorld.Invalidate v) {
            manager.invalidate(v.topic(), v.partition());
        } else if (action instanceof HostileWorld.RequestUpdate) {
            manager.requestUpdate();
        } else if (action instanceof HostileWorld.Advance a) {
            ticker.advanceMs(a.ms());
        } else {
            round((HostileWorld.Round) action);
        }
    }

    // ------------------------------------------------------------------ the sender

    private void round(HostileWorld.Round round) {
        RefreshRequest request = begin();
        if (request == null) {
            manager.requestUpdate();
            request = begin();
        }
        check(request != null, "no request went out though a full refresh was asked and the backoff is over");
        long now = ticker.milliTime();
        RefreshRequest r = request;
        switch (round.outcome()) {
            case FAIL -> {
                driver("onFailure", () -> manager.onFailure(r, "hostile: request timed out", now));
                totals.failures++;
            }
            case DISCONNECT -> {
                driver("onNodeDisconnected", () -> manager.onNodeDisconnected(round.nodeId(), now));
                driver("onFailure", () -> manager.onFailure(r, "hostile: connection dropped", now));
                totals.failures++;
            }
            default -> answer(round, r, now);
        }
        check(manager.inFlight() == null, "a request still in flight after its answer: " + manager.inFlight());
        for (String topic : WATCHED) {
            if (manager.subscribedTopics().contains(topic)) {
                probe(topic, MetadataClient.ANY_PARTITION);
                TopicMetadata t = manager.fetch().topic(topic);
                probe(topic, t == null ? 0 : t.partitionCount() - 1);
            }
        }
    }

    /** poll; if a request is due within the backoff, let fake time pass to it; then beginRefresh. */
    private RefreshRequest begin() {
        long waitMs = driver("poll", () -> manager.poll(ticker.milliTime()));
        if (waitMs > 0 && waitMs <= 10_000) {
            ticker.advanceMs(waitMs);
            driver("poll", () -> manager.poll(ticker.milliTime()));
        }
        return driver("beginRefresh", () -> manager.beginRefresh(ticker.milliTime()));
    }

    private void answer(HostileWorld.Round round, RefreshRequest request, long now) {
        MetadataResponseData data = HostileWorld.answer(round, request.topics());
        MetadataResponse wire = new MetadataResponse(data, round.version());
        RefreshResponse translated = driver("translate", () -> ResponseTranslator.translate(wire, manager.fetch()));
        HostileChecks.translated(data, round.version(), translated);
        remember(translated);
        Set<String> subscribed = new TreeSet<>(manager.subscribedTopics());
        long applied = manager.counters().responsesApplied();
        Cluster prev = manager.fetch();
        lastAnswerUntrusted = !translated.epochsTrusted();
        driver("onResponse", () -> manager.onResponse(request, translated, now));
        lastAnswerUntrusted = !translated.epochsTrusted();
        Cluster next = manager.fetch();
        if (translated.brokers().isEmpty()) {
            check(next == prev, "an answer listing no broker changed the snapshot");
            totals.answersRejected++;
        } else if (manager.counters().responsesApplied() > applied) {
            HostileChecks.answerApplied(prev, next, translated, subscribed);
            totals.answersApplied++;
            countChanges(prev, next);
        }
        lastAnswerUntrusted = false;
    }

    private void countChanges(Cluster prev, Cluster next) {
        for (String name : next.topicNames()) {
            TopicMetadata o = prev.topic(name);
            if (o != null && HostileChecks.idsDiffer(o.topicId(), next.topic(name).topicId())) {
                totals.topicIdChanges++;
            }
        }
        totals.unauthorized += next.unauthorizedTopics().size();
    }

    /** Records the real epochs an answer carried, for the rewind escape. */
    private void remember(RefreshResponse r) {
        if (!r.epochsTrusted()) {
            return;
        }
        for (TopicMetadata t : r.topics().values()) {
            for (PartitionMetadata p : t.partitions()) {
                if (!HostileChecks.skipped(p) && p.leaderEpoch() != PartitionMetadata.NO_EPOCH) {
                    Deque<Integer> d = answered.computeIfAbsent(t.name() + "/" + p.partition(),
                            k -> new ArrayDeque<>());
                    d.addLast(p.leaderEpoch());
                    if (d.size() > rewindAcceptCount) {
                        d.removeFirst();
                    }
                }
            }
        }
    }

    /** Why an epoch may have gone back to {@code epoch}: an answer without epochs, or the rewind escape. */
    private String epochBackOk(String topic, int partition, int epoch) {
        if (lastAnswerUntrusted && epoch == PartitionMetadata.NO_EPOCH) {
            return "an answer older than v9";
        }
        Deque<Integer> d = answered.get(topic + "/" + partition);
        if (d != null && d.size() == rewindAcceptCount && d.stream().allMatch(e -> e == epoch)) {
            totals.rewindsAccepted++;
            return "rewind escape";
        }
        return null;
    }

    /** A driver call: it must not throw (the sender thread would go on, but the manager would be wrong). */
    private <T> T driver(String what, Supplier<T> call) {
        T result;
        try {
            result = call.get();
        } catch (RuntimeException e) {
            throw new AssertionError("the driver call " + what + " threw " + stackTrace(e), e);
        }
        checkSnapshot();
        return result;
    }

    private void driver(String what, Runnable call) {
        driver(what, () -> {
            call.run();
            return null;
        });
    }

    private void checkSnapshot() {
        Cluster next = manager.fetch();
        HostileChecks.consistent(next, manager.subscribedTopics());
        HostileChecks.transition(last, next, this::epochBackOk);
        last = next;
    }

    // ------------------------------------------------------------------ application threads

    /**
     * {@code awaitTopic(topic, partition, 0 ms)}: returns the snapshot exactly when it answers (the topic is there with
     * partitions, or that partition has a leader), fails with TopicException exactly when the topic is refused, and
     * times out otherwise. What a parked waiter re-checks when it is woken.
     */
    private void probe(String topic, int partition) {
        Cluster c = manager.fetch();
        TopicMetadata t = c.topic(topic);
        PartitionMetadata p = t == null ? null : t.partition(partition);
        boolean answers = t != null && (partition == MetadataClient.ANY_PARTITION ? t.partitionCount() > 0
                : p != null && p.hasLeader());
        boolean refused = c.unauthorizedTopics().contains(topic) || c.invalidTopics().contains(topic);
        String what = "awaitTopic(" + topic + ", " + partition + ", 0 ms) on " + t + (p == null ? "" : " " + p);
        try {
            Cluster got = manager.awaitTopic(topic, partition, Deadline.after(Duration.ZERO, ticker));
            check(answers && got == c, what + " returned " + (answers ? "another snapshot" : "without an answer"));
            totals.releasedProbes++;
        } catch (TopicException e) {
            check(refused, what + " refused though the topic is not refused: " + e.getMessage());
        } catch (MetadataTimeoutException e) {
            check(!answers && !refused, what + " timed out though the snapshot "
                    + (refused ? "refuses it" : "answers it") + ": a waiter left parked");
        }
        check(manager.fetch() == c, "a zero-budget wait changed the snapshot");
    }

    static String stackTrace(Throwable e) {
        StringWriter w = new StringWriter();
        e.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    MetadataConfig config() {
        return config;
    }
}
