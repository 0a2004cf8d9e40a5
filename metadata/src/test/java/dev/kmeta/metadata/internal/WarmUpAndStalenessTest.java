package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataInterruptedException;
import dev.kmeta.metadata.PrefetchResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The manager's warm-up ({@code prefetch}, {@code subscribeAll}) and staleness target
 * ({@code kmeta.metadata.max.staleness.ms}) on fake time, the test thread as the sender: a prefetch of N topics is one
 * request and one wait, diagnosed per topic missing; a topic is refreshed exactly when its metadata is older than
 * the target, the stale ones only; and many stale topics never make more than one request per target period.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WarmUpAndStalenessTest {
    private static final long TARGET_MS = 2_000;

    @Test
    void aPrefetchOfManyTopicsIsOneRequestAndOneWait() throws Exception {
        try (Harness h = new Harness()) {
            List<String> topics = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                h.broker.topic("t" + i, 2, 1);
                topics.add("t" + i);
            }
            h.step();
            int before = h.broker.requests.size();
            CompletableFuture<PrefetchResult> f = h.waiting(() -> h.manager.prefetch(topics, h.deadline(5_000)));
            RefreshRequest r = h.step();
            PrefetchResult result = f.get(10, TimeUnit.SECONDS);

            assertEquals(Set.copyOf(topics), r.topics(), "one request asks for every topic");
            assertEquals(before + 1, h.broker.requests.size(), "and it is the only one");
            assertTrue(result.complete(), result.toString());
            assertEquals(topics, result.fetched());
            assertEquals(1, h.manager.counters().waits(), "one wait for all");
            assertNull(h.step(), "nothing left to ask");
        }
    }

    /**
     * The sender may run the moment it is woken, between two topics being posted: here it does, on the prefetching
     * thread itself (the waker runs a sender round). Still one request asks for every topic: they are posted as one
     * command.
     */
    @Test
    void aSenderRunningTheMomentItIsWokenStillSendsOneRequestForAll() {
        try (Harness h = new Harness()) {
            List<String> topics = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                h.broker.topic("t" + i, 1, 1);
                topics.add("t" + i);
            }
            h.step();
            List<RefreshRequest> sent = new ArrayList<>();
            h.manager.setWaker(() -> {
                RefreshRequest r = h.step();
                if (r != null) {
                    sent.add(r);
                }
            });
            PrefetchResult result = h.manager.prefetch(topics, h.deadline(1_000));
            assertTrue(result.complete(), result.toString());
            assertEquals(1, sent.size(), "requests: " + sent);
            assertEquals(Set.copyOf(topics), sent.get(0).topics());
        }
    }

    @Test
    void aTopicNotFoundIsDiagnosedAtTheDeadlineTheOthersAreThere() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("a", 1, 1).topic("b", 1, 1);
            h.broker.denied.add("secret");
            h.step();
            CompletableFuture<PrefetchResult> f = h.waiting(() -> h.manager.prefetch(
                    List.of("a", "nope", "b", "secret"), h.deadline(1_000)));
            RefreshRequest r = h.step();
            assertEquals(Set.of("a", "b", "nope", "secret"), r.topics());
            assertFalse(f.isDone(), "still waiting for 'nope' within its budget");
            h.advance(1_000);
            PrefetchResult result = f.get(10, TimeUnit.SECONDS);

            assertEquals(List.of("a", "b"), result.fetched());
            assertEquals(List.of("nope", "secret"), List.copyOf(result.missing().keySet()));
            Diagnosis nope = result.missing().get("nope");
            assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, nope.cause(), nope.toString());
            assertEquals(1_000, nope.budgetMs());
            assertEquals(Diagnosis.Cause.TOPIC_NOT_AUTHORIZED, result.missing().get("secret").cause());
            assertTrue(result.toString().contains("nope: TOPIC_NOT_FOUND"), result.toString());
        }
    }

    @Test
    void aPrefetchOfKnownTopicsIsACacheHit() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("a", 1, 1);
            h.learn("a");
            long waits = h.manager.counters().waits();
            PrefetchResult result = h.manager.prefetch(List.of("a"), h.deadline(0));
            assertTrue(result.complete());
            assertEquals(0, result.elapsedMs());
            assertEquals(waits, h.manager.counters().waits(), "no wait");
            assertNull(h.step(), "no request");
        }
    }

    @Test
    void anInterruptEndsAPrefetchAndCloseReleasesIt() throws Exception {
        try (Harness h = new Harness()) {
            h.step();
            CompletableFuture<Thread> thread = new CompletableFuture<>();
            CompletableFuture<PrefetchResult> f = h.waiting(() -> {
                thread.complete(Thread.currentThread());
                return h.manager.prefetch(List.of("x", "y"), h.deadline(60_000));
            });
            thread.get().interrupt();
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
            assertInstanceOf(MetadataInterruptedException.class, e.getCause());
            assertEquals(0, h.manager.counters().waitersNow());

            CompletableFuture<PrefetchResult> g = h.waiting(() -> h.manager.prefetch(List.of("x"),
                    h.deadline(60_000)));
            h.manager.close();
            e = assertThrows(ExecutionException.class, () -> g.get(10, TimeUnit.SECONDS));
            assertInstanceOf(MetadataClosedException.class, e.getCause());
        }
    }

    @Test
    void subscribeAllAsksForEveryTopicInTheFirstRequest() {
        try (Harness h = new Harness()) {
            h.broker.topic("a", 1, 1).topic("b", 3, 1);
            h.manager.subscribeAll(List.of("a", "b", "a"));
            RefreshRequest first = h.step();
            assertEquals(Set.of("a", "b"), first.topics());
            assertEquals(3, h.manager.fetch().partitionCount("b"));
        }
    }

    @Test
    void aTopicIsRefreshedExactlyWhenOlderThanTheTargetAndOnlyTheStaleOnes() throws Exception {
        try (Harness h = new Harness(Map.of("kmeta.metadata.max.staleness.ms", Long.toString(TARGET_MS)))) {
            h.broker.topic("old", 1, 1).topic("young", 1, 1);
            h.learn("old");
            h.advance(500);
            h.learn("young"); // described 500 ms after "old"
            long staleBefore = h.manager.counters().staleRefreshes();

            h.advance(TARGET_MS - 500);
            assertNull(h.step(), "'old' is exactly as old as the target: not stale yet");
            h.advance(1);
            RefreshRequest r = h.step();
            assertNotNull(r, "older than the target by 1 ms: refreshed");
            assertFalse(r.isFull());
            assertEquals(Set.of("old"), r.topics(), "only the stale topic");
            assertEquals(staleBefore + 1, h.manager.counters().staleRefreshes());
            assertEquals(0, h.manager.topicAgeMs("old"));
        }
    }

    @Test
    void offByDefaultNothingIsRefreshedBeforeMaxAge() throws Exception {
        try (Harness h = new Harness(Map.of("metadata.max.age.ms", "60000"))) {
            h.broker.topic("t", 1, 1);
            h.learn("t");
            h.advance(59_999);
            assertNull(h.step());
            assertEquals(0, h.manager.counters().staleRefreshes());
        }
    }

    @Test
    void aHugeTargetIsNeverReached() throws Exception {
        try (Harness h = new Harness(Map.of("kmeta.metadata.max.staleness.ms", Long.toString(Long.MAX_VALUE),
                "metadata.max.age.ms", Long.toString(Long.MAX_VALUE)))) {
            h.broker.topic("t", 1, 1);
            h.learn("t");
            assertTrue(h.manager.poll(h.now()) > 1_000_000_000L, "nothing due for a very long time");
            h.advance(3_600_000);
            assertNull(h.step());
            assertEquals(0, h.manager.counters().staleRefreshes());
        }
    }

    @Test
    void whenEveryTopicIsStaleOneFullRequestAsksForAll() throws Exception {
        try (Harness h = new Harness(Map.of("kmeta.metadata.max.staleness.ms", Long.toString(TARGET_MS)))) {
            h.broker.topic("a", 1, 1).topic("b", 1, 1);
            h.learn("a", "b");
            h.advance(TARGET_MS + 1);
            RefreshRequest r = h.step();
            assertTrue(r.isFull(), r.toString());
            assertEquals(Set.of("a", "b"), r.topics());
            assertEquals(0, h.manager.metadataAgeMs(), "a full answer: the metadata age starts again");
        }
    }

    /**
     * 100 topics described 20 ms apart, so that one becomes stale every 20 ms: over 10 target periods the target
     * makes at most one request per period (11 with the one at the start), not one per stale topic.
     */
    @Test
    void manyStaleTopicsMakeAtMostOneRequestPerTargetPeriod() throws Exception {
        try (Harness h = new Harness(Map.of("kmeta.metadata.max.staleness.ms", Long.toString(TARGET_MS)))) {
            for (int i = 0; i < 100; i++) {
                h.broker.topic("t" + i, 1, 1);
            }
            h.step();
            for (int i = 0; i < 100; i++) {
                h.manager.subscribe("t" + i);
                h.step();
                h.advance(20);
            }
            int before = h.broker.requests.size();
            long staleBefore = h.manager.counters().staleRefreshes();
            long periods = 10;
            for (long ms = 0; ms < periods * TARGET_MS; ms += 10) {
                h.advance(10);
                h.step();
            }
            int requests = h.broker.requests.size() - before;
            long stale = h.manager.counters().staleRefreshes() - staleBefore;
            assertTrue(requests <= periods + 1, requests + " requests in " + periods + " target periods");
            assertEquals(requests, stale, "each request was a staleness refresh");
            assertTrue(requests >= periods - 1, "and the target did refresh: " + requests);
            assertTrue(h.manager.oldestTopicAgeMs() <= 2 * TARGET_MS, "age " + h.manager.oldestTopicAgeMs());
        }
    }

    @Test
    void theOldestTopicAgeIsTheLargestTopicAge() throws Exception {
        try (Harness h = new Harness()) {
            assertEquals(-1, h.manager.oldestTopicAgeMs(), "no topic described yet");
            h.broker.topic("a", 1, 1).topic("b", 1, 1);
            h.learn("a");
            h.advance(700);
            h.learn("b");
            h.advance(300);
            assertEquals(1_000, h.manager.oldestTopicAgeMs());
            assertEquals(300, h.manager.topicAgeMs("b"));
        }
    }
}
