package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.RefreshState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The refresh state machine: {@code STABLE -> NEED_UPDATE -> IN_FLIGHT -> STABLE | NEED_UPDATE}, and
 * {@code CLOSED} from anywhere. Every transition happens in {@link #transition}, is logged at DEBUG and counted.
 *
 * <p>It decides <em>when</em> the next request may go out and <em>what</em> it asks for:
 * <ul>
 *   <li>FULL (every subscribed topic): after {@code requestUpdate()}, when {@code metadata.max.age.ms} elapsed, and for
 *       the very first request;</li>
 *   <li>PARTIAL: the new topics plus the known topics someone asked to refresh (invalidations, leaderless
 *       partitions, partitions not there yet) - narrower than kafka-clients, which refreshes everything on an
 *       invalidation.</li>
 * </ul>
 * At most one request is in flight. What is asked while one is in flight stays in the pending sets and makes the
 * next request (the union), so nothing asked is lost. A new topic skips the backoff once; otherwise requests are
 * spaced by the backoff: after a failure {@code retry.backoff.ms} doubling to {@code retry.backoff.max.ms}; after
 * an answer that brought no news, the same doubling (the first such answer: {@code retry.backoff.ms}) - from twice
 * {@code kmeta.metadata.leaderless.refresh.ms} when the next request is only for leaderless partitions; after news,
 * at least {@code retry.backoff.ms}. Which of the two a request waits is decided by what it is for when it is due (an
 * invalidation that comes after an answer without news waits the retry backoff, not the leaderless one); both are
 * drawn, jitter included, when the answer comes. So the request rate is bounded by the backoff, whatever the number
 * of callers.
 *
 * <p>Not thread-safe: the sender thread alone calls it. {@link #state()} and {@link #transitions} may be read
 * from any thread.
 */
final class RefreshStateMachine {
    private static final Logger log = LoggerFactory.getLogger(RefreshStateMachine.class);
    private static final long NEVER = Long.MIN_VALUE / 4;

    private final String clientId;
    private final long maxAgeMs;
    private final Backoff retryBackoff;
    private final Backoff noNewsBackoff;
    private final Backoff leaderlessBackoff;
    private final AtomicLongArray transitions = new AtomicLongArray(RefreshState.values().length);

    private volatile RefreshState state = RefreshState.STABLE;
    private boolean needFull;
    private final Set<String> pendingNew = new LinkedHashSet<>();
    private final Set<String> pendingRefresh = new LinkedHashSet<>();
    /** True while everything asked since the last request is a leaderless refresh (true when nothing is). */
    private boolean onlyLeaderless = true;
    private boolean newTopicBypass;
    private long lastAttemptMs = NEVER;
    private long lastSuccessMs = NEVER;
    private long lastFullSuccessMs = NEVER;
    /** The backoff after the last attempt for a request that is not only a leaderless refresh. */
    private long backoffAfterLastMs;
    /** The backoff after the last attempt for a request that only refreshes leaderless partitions. */
    private long leaderlessBackoffAfterLastMs;
    private int failuresInARow;
    private int noNewsInARow;
    private RefreshRequest inFlight;
    private long inFlightSinceMs;
    private long nextRequestId = 1;

    RefreshStateMachine(String clientId, long maxAgeMs, Backoff retryBackoff, Backoff leaderlessBackoff) {
        this.clientId = clientId;
        this.maxAgeMs = maxAgeMs;
        this.retryBackoff = retryBackoff;
        this.noNewsBackoff = retryBackoff;
        this.leaderlessBackoff = leaderlessBackoff;
    }

    RefreshState state() {
        return state;
    }

    /** How many times the machine entered {@code s}. */
    long transitions(RefreshState s) {
        return transitions.get(s.ordinal());
    }

    RefreshRequest inFlight() {
        return inFlight;
    }

    long inFlightSinceMs() {
        return inFlightSinceMs;
    }

    /** {@code requestUpdate()}: every subscribed topic, next request. */
    void requestFull(String why) {
        needFull = true;
        onlyLeaderless = false;
        wantUpdate(why);
    }

    /**
     * A topic not in the snapshot: goes in the next request. {@code neverAsked} (the topic was never in a request)
     * lets it skip the backoff (KIP-526); a topic the brokers already said they do not know waits like any retry.
     */
    void addNew(String topic, boolean neverAsked) {
        if (pendingNew.add(topic) && neverAsked) {
            newTopicBypass = true;
        }
        onlyLeaderless = false;
        wantUpdate("new topic ", topic);
    }

    /** A known topic to refresh; {@code leaderless} when the only reason is a partition without a leader. */
    void addRefresh(String topic, boolean leaderless) {
        pendingRefresh.add(topic);
        onlyLeaderless &= leaderless;
        wantUpdate(leaderless ? "leaderless partitions in " : "invalidated ", topic);
    }

    /**
     * The answer to a request that asked for {@code asked} is applied: a topic it asked for and {@code next} now has
     * is no longer new, even if it was asked for again while the request was in flight (a send subscribes and then
     * waits, each telling the sender; issue 28: a fresh producer's first request, which carries its topic, was
     * followed by a second request for the same topic that brought no news).
     */
    void newTopicsAnswered(Collection<String> asked, dev.kmeta.cluster.Cluster next) {
        if (pendingNew.isEmpty()) {
            return;
        }
        pendingNew.removeIf(t -> {
            dev.kmeta.cluster.TopicMetadata known = next.topic(t);
            return known != null && known.partitionCount() > 0 && asked.contains(t);
        });
    }

    /** Forgets a topic that left the subscription. */
    void forget(String topic) {
        pendingNew.remove(topic);
        pendingRefresh.remove(topic);
    }

    private boolean wantsUpdate() {
        return needFull || !pendingNew.isEmpty() || !pendingRefresh.isEmpty() || lastSuccessMs == NEVER;
    }

    private void wantUpdate(String why) {
        wantUpdate(why, "");
    }

    /** Like {@link #wantUpdate(String)}; the reason is joined only if it is logged (1,000 asks, no 1,000 strings). */
    private void wantUpdate(String why, String topic) {
        if (state == RefreshState.STABLE) {
            transition(RefreshState.NEED_UPDATE, topic.isEmpty() ? why : why + topic);
        }
    }

    /**
     * Ms until the next request may go out: 0 when due now, {@link Long#MAX_VALUE} while one is in flight or after
     * close. Moves STABLE to NEED_UPDATE when the periodic refresh falls due.
     */
    long timeToNextUpdate(long nowMs) {
        if (state == RefreshState.CLOSED || state == RefreshState.IN_FLIGHT) {
            return Long.MAX_VALUE;
        }
        if (lastAttemptMs == NEVER || (newTopicBypass && !pendingNew.isEmpty())) {
            return 0;
        }
        if (wantsUpdate()) {
            return backoffLeft(nowMs);
        }
        long ageLeft = lastFullSuccessMs + maxAgeMs - nowMs;
        if (ageLeft <= 0) {
            needFull = true;
            onlyLeaderless = false;
            wantUpdate("metadata.max.age.ms elapsed");
            return backoffLeft(nowMs);
        }
        return Math.max(ageLeft, backoffLeft(nowMs));
    }

    /**
     * Sends the next request: moves to IN_FLIGHT and returns what to ask for.
     *
     * @param subscribed every subscribed topic (for a FULL request)
     */
    RefreshRequest begin(long nowMs, Collection<String> subscribed, boolean allowAutoTopicCreation) {
        if (state == RefreshState.CLOSED || state == RefreshState.IN_FLIGHT) {
            throw new IllegalStateException("cannot send a metadata request in state " + state);
        }
        boolean full = needFull || lastFullSuccessMs == NEVER || lastFullSuccessMs + maxAgeMs <= nowMs;
        Set<String> topics;
        if (full) {
            topics = subscribed instanceof Subscriptions.Names
                    ? ((Subscriptions.Names) subscribed).stableCopy() // the last one while nothing changed
                    : Collections.unmodifiableSet(new LinkedHashSet<>(subscribed));
        } else {
            Set<String> asked = new LinkedHashSet<>(pendingNew);
            asked.addAll(pendingRefresh);
            topics = Collections.unmodifiableSet(asked);
        }
        needFull = false;
        pendingNew.clear();
        pendingRefresh.clear();
        newTopicBypass = false;
        RefreshRequest request = RefreshRequest.holding(nextRequestId++, full, topics, allowAutoTopicCreation);
        inFlight = request;
        inFlightSinceMs = nowMs;
        lastAttemptMs = nowMs;
        transition(RefreshState.IN_FLIGHT, request.toString());
        onlyLeaderless = true;
        return request;
    }

    /** The in-flight request was answered and the answer applied; {@code news} when it changed the snapshot. */
    void onSuccess(RefreshRequest request, boolean news, long nowMs) {
        checkInFlight(request);
        inFlight = null;
        lastSuccessMs = nowMs;
        if (request.isFull()) {
            lastFullSuccessMs = nowMs;
        }
        failuresInARow = 0;
        if (news) {
            noNewsInARow = 0;
            backoffAfterLastMs = retryBackoff.baseMs();
            leaderlessBackoffAfterLastMs = backoffAfterLastMs;
        } else {
            // Both now, chosen when the next request is due: what it is for may still change (an invalidation after
            // this answer is not a leaderless refresh, even if nothing else is pending now).
            // The first answer without news waits retry.backoff.ms, as a first failure does and as kafka-clients
            // waits between its asks for a topic a send waits for (a topic created a moment ago that the broker
            // answering does not know yet is asked again after that long, not twice that); then doubling. The
            // leaderless family keeps its one step ahead: its base is the faster one.
            backoffAfterLastMs = noNewsBackoff.backoffMs(noNewsInARow++);
            leaderlessBackoffAfterLastMs = leaderlessBackoff.backoffMs(noNewsInARow);
        }
        settle(news ? "answer applied" : "answer brought no news");
    }

    /** The in-flight request failed (disconnect, timeout, error); what it asked for is asked again after backoff. */
    void onFailure(RefreshRequest request, long nowMs, Collection<String> knownTopics, String reason) {
        checkInFlight(request);
        inFlight = null;
        backoffAfterLastMs = retryBackoff.backoffMs(failuresInARow++);
        leaderlessBackoffAfterLastMs = backoffAfterLastMs;
        if (request.isFull()) {
            needFull = true;
        }
        for (String t : request.topics()) {
            if (knownTopics.contains(t)) {
                pendingRefresh.add(t);
            } else {
                pendingNew.add(t);
            }
        }
        onlyLeaderless = false;
        transition(RefreshState.NEED_UPDATE, "request failed: " + reason + "; retry in " + backoffAfterLastMs + " ms");
    }

    /** Ms until the backoff after the last attempt is over: the leaderless one only for a leaderless refresh. */
    private long backoffLeft(long nowMs) {
        long backoff = onlyLeaderless ? leaderlessBackoffAfterLastMs : backoffAfterLastMs;
        return Math.max(0, lastAttemptMs + backoff - nowMs);
    }

    private void settle(String why) {
        transition(wantsUpdate() ? RefreshState.NEED_UPDATE : RefreshState.STABLE, why);
    }

    private void checkInFlight(RefreshRequest request) {
        if (request != inFlight) {
            throw new IllegalStateException("answer for " + request + " but in flight is " + inFlight);
        }
    }

    void close() {
        transition(RefreshState.CLOSED, "closed");
    }

    private void transition(RefreshState to, String why) {
        RefreshState from = state;
        if (from == RefreshState.CLOSED) {
            return;
        }
        state = to;
        transitions.incrementAndGet(to.ordinal());
        if (log.isDebugEnabled()) {
            log.debug("[{}] metadata {} -> {}: {}", clientId, from, to, why);
        }
    }
}
