package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.TopicMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 14 item 3: KRaft brokers put a random live broker in the Metadata answer's controller id, so on a multi-broker
 * cluster successive answers report different "controllers" while nothing changed. A changed controller id alone is
 * no news: it must not reset the backoff (which made kmeta send ~5 requests a second for an unanswerable partition),
 * and an answer that brings only that behaves exactly like an answer identical to the previous one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ControllerIdChurnTest {
    /** The controller ids 20 successive snapshots of a 3-broker KRaft cluster reported (the probe, minus 1). */
    private static final int[] PROBE = {2, 1, 1, 2, 2, 1, 1, 1, 0, 0, 2, 2, 1, 1, 2, 1, 0, 0, 1, 2};
    private static final long RETRY_BACKOFF_MS = 100;
    private static final long RETRY_BACKOFF_MAX_MS = 1_000;
    private static final long WINDOW_MS = 8_000;

    /** What the sender did while one thread waited for a partition the topic does not have. */
    private record Run(List<Long> sentAtMs, List<Integer> versionSteps, List<Integer> controllers, boolean released) {
    }

    private static Map<String, Object> config() {
        return Map.of("retry.backoff.ms", String.valueOf(RETRY_BACKOFF_MS),
                "retry.backoff.max.ms", String.valueOf(RETRY_BACKOFF_MAX_MS));
    }

    /**
     * Topic t has 3 partitions; a thread waits for partition 5 (the topic was re-created smaller, the producer still
     * sends to 5). The sender runs every fake ms for {@link #WINDOW_MS}; each answer reports {@code controllers}' next id.
     */
    private static Run unanswerablePartition(IntSupplier controllers) throws Exception {
        try (Harness h = new Harness(config())) {
            h.broker.topic("t", 3, 0);
            h.learn("t");
            TopicMetadata known = h.manager.fetch().topic("t");
            h.broker.controllerId = controllers;
            CompletableFuture<Cluster> wait = h.waiting(() -> h.manager.awaitTopic("t", 5, h.deadline(60_000)));
            long start = h.now();
            List<Long> sentAt = new ArrayList<>();
            List<Integer> steps = new ArrayList<>();
            List<Integer> reported = new ArrayList<>();
            for (int i = 0; i < WINDOW_MS; i++) {
                int before = h.manager.fetch().version();
                if (h.step() != null) {
                    sentAt.add(h.now() - start);
                    steps.add(h.manager.fetch().version() - before);
                    reported.add(h.manager.fetch().controllerId());
                }
                h.advance(1);
            }
            assertSame(known, h.manager.fetch().topic("t"), "no answer changed the topic: its object is shared");
            boolean released = wait.isDone();
            h.manager.close();
            return new Run(sentAt, steps, reported, released);
        }
    }

    /**
     * The gaps the configured backoff gives answers without news (jitter 0): retry.backoff.ms after the first, then
     * doubling to its max.
     */
    private static List<Long> expectedGaps(int count) {
        List<Long> gaps = new ArrayList<>();
        for (int noNewsInARow = 0; gaps.size() < count; noNewsInARow++) {
            gaps.add(Math.min(RETRY_BACKOFF_MAX_MS, RETRY_BACKOFF_MS << Math.min(noNewsInARow, 30)));
        }
        return gaps;
    }

    private static List<Long> gaps(List<Long> times) {
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < times.size(); i++) {
            gaps.add(times.get(i) - times.get(i - 1));
        }
        return gaps;
    }

    @Test
    void aChangingControllerIdDoesNotResetTheBackoff() throws Exception {
        int[] next = {0};
        Run churn = unanswerablePartition(() -> PROBE[next[0]++ % PROBE.length]);
        assertTrue(churn.controllers().stream().distinct().count() > 1, "the answers did report changing ids: "
                + churn.controllers());
        assertEquals(expectedGaps(churn.sentAtMs().size() - 1), gaps(churn.sentAtMs()),
                "requests spaced by retry.backoff.ms doubling to retry.backoff.max.ms, whatever id the answers report");
        assertFalse(churn.released(), "partition 5 never appeared");

        Run steady = unanswerablePartition(() -> 0);
        assertEquals(steady.sentAtMs(), churn.sentAtMs(), "the same requests as answers reporting one id throughout");
        assertEquals(steady.versionSteps(), churn.versionSteps(),
                "the same versions as answers identical to the last: one step per applied answer, nothing more");
        for (int step : churn.versionSteps()) {
            assertEquals(1, step, "one snapshot per answer (awaitUpdate's contract), none for the id");
        }
    }

    @Test
    void theSnapshotKeepsTheReportedIdForWhatItIsWorth() throws Exception {
        try (Harness h = new Harness(config())) {
            h.broker.controllerId = () -> 2;
            h.step();
            assertEquals(2, h.manager.fetch().controllerId(), "as reported (on ZooKeeper-era brokers: the controller)");
            h.broker.controllerId = () -> 1;
            h.advance(RETRY_BACKOFF_MS);
            h.manager.requestUpdate();
            h.step();
            assertEquals(1, h.manager.fetch().controllerId());
        }
    }

    @Test
    void realNewsStillResetsTheBackoff() throws Exception {
        try (Harness h = new Harness(config())) {
            h.broker.topic("t", 3, 0);
            h.learn("t");
            CompletableFuture<Cluster> wait = h.waiting(() -> h.manager.awaitTopic("t", 5, h.deadline(60_000)));
            long start = h.now();
            List<Long> sentAt = new ArrayList<>();
            for (int i = 0; i < 10_000 && sentAt.size() < 7; i++) {
                if (h.step() != null) {
                    sentAt.add(h.now() - start);
                    if (sentAt.size() == 4) {
                        h.broker.brokers.add(new Node(3, "127.0.0.1", 9095)); // the 5th answer brings news
                    }
                }
                h.advance(1);
            }
            List<Long> gaps = gaps(sentAt);
            assertEquals(expectedGaps(4), gaps.subList(0, 4), "no news: doubling");
            assertEquals(RETRY_BACKOFF_MS, gaps.get(4), "the answer that brought a new broker resets the backoff");
            assertEquals(expectedGaps(1), gaps.subList(5, 6), "and the doubling starts over");
            assertFalse(wait.isDone(), "partition 5 never appeared");
        }
    }
}
