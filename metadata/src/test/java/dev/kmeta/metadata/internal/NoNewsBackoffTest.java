package dev.kmeta.metadata.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 14 item 5: the fast leaderless backoff ({@code kmeta.metadata.leaderless.refresh.ms}) is for requests that only
 * refresh leaderless partitions. Which backoff a request waits is decided by what it is for when it is due, not by what
 * happened to be pending when the previous answer came: an invalidation that follows an answer without news waits
 * {@code retry.backoff.ms}'s doubling, never the leaderless one. The backoffs are made distinct here (retry 500 ms,
 * leaderless 100 ms, jitter 0) so that the two can be told apart.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NoNewsBackoffTest {
    private static final long RETRY_MS = 500;
    private static final long RETRY_MAX_MS = 4_000;
    private static final long LEADERLESS_MS = 100;

    private static Harness harness(long leaderlessMs) {
        return new Harness(Map.of("retry.backoff.ms", String.valueOf(RETRY_MS),
                "retry.backoff.max.ms", String.valueOf(RETRY_MAX_MS),
                "kmeta.metadata.leaderless.refresh.ms", String.valueOf(leaderlessMs)));
    }

    /** The configured backoff of a family after {@code noNewsInARow} answers without news (jitter 0). */
    private static long backoff(long baseMs, int noNewsInARow) {
        return Math.min(RETRY_MAX_MS, baseMs << noNewsInARow);
    }

    /** Steps the sender every fake ms until a request goes out; returns how long after {@code fromMs} it went. */
    private static long nextRequestAfter(Harness h, long fromMs, long atMostMs) {
        for (long i = 0; i <= atMostMs; i++) {
            if (h.step() != null) {
                return h.now() - fromMs;
            }
            h.advance(1);
        }
        throw new AssertionError("no request within " + atMostMs + " ms");
    }

    /** An answer to requestUpdate() that changed nothing, at the returned time; then nothing is wanted. */
    private static long answerWithoutNews(Harness h) {
        h.advance(RETRY_MS); // past the backoff of the answer that made the topic known (news)
        int version = h.manager.requestUpdate();
        assertNotNull(h.step(), "the full refresh goes out");
        assertTrue(h.manager.fetch().version() > version);
        assertTrue(h.broker.requests.get(h.broker.requests.size() - 1).isFull());
        assertNull(h.step(), "nothing more is wanted");
        return h.now();
    }

    @Test
    void anInvalidationAfterAnAnswerWithoutNewsWaitsTheRetryBackoff() throws Exception {
        for (long leaderlessMs : new long[] {LEADERLESS_MS, 0}) { // 0: leaderless refresh off (its backoff is 0)
            try (Harness h = harness(leaderlessMs)) {
                h.broker.topic("t", 2, 0);
                h.learn("t");
                long answeredAt = answerWithoutNews(h);
                h.manager.invalidate("t", 0); // e.g. a send got NOT_LEADER_OR_FOLLOWER
                long waited = nextRequestAfter(h, answeredAt, RETRY_MAX_MS);
                assertTrue(waited >= RETRY_MS, "leaderless.refresh.ms=" + leaderlessMs + ": the invalidation went out "
                        + waited + " ms after the last request, inside retry.backoff.ms (" + RETRY_MS + ")");
                assertEquals(backoff(RETRY_MS, 0), waited, "leaderless.refresh.ms=" + leaderlessMs
                        + ": retry.backoff.ms after the one answer without news (its doubling starts with the second)");
            }
        }
    }

    @Test
    void aLeaderlessOnlyRefreshStillWaitsTheFastBackoff() throws Exception {
        try (Harness h = harness(LEADERLESS_MS)) {
            h.broker.topic("t", 2, 1);
            h.broker.leader("t", 1, 7, 2); // broker 7 is not listed: partition 1 has no leader
            h.learn("t");
            // After the news (the topic became known), retry.backoff.ms; then only the leaderless partition is
            // wanted and the answers bring no news: the fast backoff, doubling.
            long last = h.now();
            List<Long> waits = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                long w = nextRequestAfter(h, last, RETRY_MAX_MS);
                waits.add(w);
                last += w;
            }
            assertEquals(List.of(RETRY_MS, backoff(LEADERLESS_MS, 1), backoff(LEADERLESS_MS, 2)), waits);
        }
    }

    @Test
    void aLeaderlessRefreshPendingWhenAnInvalidationComesWaitsTheRetryBackoff() throws Exception {
        try (Harness h = harness(LEADERLESS_MS)) {
            h.broker.topic("t", 2, 1);
            h.broker.leader("t", 1, 7, 2);
            h.broker.topic("u", 1, 0);
            h.learn("t", "u");
            long last = h.now();
            long first = nextRequestAfter(h, last, RETRY_MAX_MS); // retry.backoff.ms after the news
            assertEquals(RETRY_MS, first);
            last += first;
            // The answer brought no news; only t's leaderless partition is wanted: due in 2 x 100 ms. Then u is
            // invalidated: that request is not a leaderless refresh, it waits retry.backoff.ms (the first answer
            // without news is not doubled).
            h.manager.invalidate("u", 0);
            long w = nextRequestAfter(h, last, RETRY_MAX_MS);
            assertEquals(backoff(RETRY_MS, 0), w);
            assertTrue(h.broker.requests.get(h.broker.requests.size() - 1).topics().contains("u"));
        }
    }
}
