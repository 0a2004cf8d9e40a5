package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.Node;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataFatalException;
import dev.kmeta.metadata.MetadataTimeoutException;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.metadata.TopicException;
import dev.kmeta.metadata.TooManyTopicsException;
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
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.time.Duration;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetadataManagerTest {

    private static Throwable failure(CompletableFuture<?> f) throws InterruptedException {
        try {
            f.get(10, TimeUnit.SECONDS);
            throw new AssertionError("expected the wait to fail");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the wait did not end", e);
        }
    }

    private static <T> T result(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void firstRequestIsFullAndLearnsBrokersWithoutTopics() {
        try (Harness h = new Harness()) {
            RefreshRequest r = h.step();
            assertNotNull(r);
            assertTrue(r.isFull());
            assertTrue(r.topics().isEmpty());
            assertEquals(3, h.manager.fetch().nodes().size());
            assertEquals("cluster-A", h.manager.fetch().clusterId());
            assertEquals(RefreshState.STABLE, h.manager.state());
        }
    }

    @Test
    void awaitTopicWaitsForANewTopicAndOnePartialRequestAnswersIt() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 6, 3);
            h.step();
            CompletableFuture<Cluster> f = h.waiting(() -> h.manager.awaitTopic("orders", h.deadline(60_000)));
            assertFalse(f.isDone());
            RefreshRequest r = h.step();
            assertFalse(r.isFull(), "a new topic makes a partial request");
            assertEquals(Set.of("orders"), r.topics());
            Cluster c = result(f);
            assertEquals(6, c.partitionCount("orders"));
            assertEquals(1, c.leader("orders", 1).id());
        }
    }

    @Test
    void cacheHitReturnsAtOnceWithoutARequest() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 2, 0);
            h.manager.awaitTopic("orders", Deadline.after(Duration.ZERO, h.ticker)); // subscribes; times out at once
        } catch (MetadataTimeoutException expected) {
            // first call with a zero budget: not known yet
        }
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 2, 0);
            CompletableFuture<Cluster> f = h.waiting(() -> h.manager.awaitTopic("orders", h.deadline(1000)));
            h.step();
            result(f);
            int sent = h.broker.requests.size();
            for (int i = 0; i < 1000; i++) {
                assertEquals(2, h.manager.awaitTopic("orders", 1, h.deadline(0)).partitionCount("orders"));
            }
            h.step();
            assertEquals(sent, h.broker.requests.size(), "cache hits send nothing");
        }
    }

    @Test
    void zeroBudgetNeverBlocksAndSaysWhy() {
        try (Harness h = new Harness()) {
            h.step();
            MetadataTimeoutException e = assertThrows(MetadataTimeoutException.class,
                    () -> h.manager.awaitTopic("missing", h.deadline(0)));
            assertTrue(e.getMessage().contains("Topic missing not present in metadata after 0 ms"), e.getMessage());
            assertThrows(MetadataTimeoutException.class, () -> h.manager.awaitUpdate(h.manager.fetch().version(), h.manager.newDeadline(Duration.ZERO)));
        }
    }

    @Test
    void missingTopicTimesOutWithTheBrokersWord() throws Exception {
        try (Harness h = new Harness()) {
            h.step();
            CompletableFuture<Cluster> f = h.waiting(() -> h.manager.awaitTopic("ghost", h.deadline(5_000)));
            h.step();
            h.advance(1_000);
            h.step();
            h.advance(4_001);
            Throwable t = failure(f);
            assertInstanceOf(MetadataTimeoutException.class, t);
            assertTrue(t.getMessage().contains("UNKNOWN_TOPIC_OR_PARTITION 2 time(s)"), t.getMessage());
        }
    }

    @Test
    void manyThreadsAskingAtOnceMakeOneRequest() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 3, 0);
            h.step();
            List<CompletableFuture<Cluster>> waits = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                waits.add(h.waiting(() -> h.manager.awaitTopic("orders", h.deadline(60_000))));
                h.manager.requestUpdate();
            }
            int before = h.broker.requests.size();
            h.step();
            assertEquals(before + 1, h.broker.requests.size());
            RefreshRequest last = h.broker.requests.get(h.broker.requests.size() - 1);
            assertTrue(last.isFull() && last.topics().contains("orders"), "the full request carries the new topic");
            for (CompletableFuture<Cluster> w : waits) {
                assertEquals(3, result(w).partitionCount("orders"));
            }
            assertTrue(h.manager.counters().requestsCoalesced() >= 19);
        }
    }

    @Test
    void atMostOneRequestInFlightAndWhatIsAskedMeanwhileIsNotLost() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("a", 1, 0).topic("b", 1, 0);
            h.step();
            CompletableFuture<Cluster> a = h.waiting(() -> h.manager.awaitTopic("a", h.deadline(60_000)));
            h.manager.poll(h.now());
            RefreshRequest first = h.manager.beginRefresh(h.now());
            assertEquals(Set.of("a"), first.topics());
            assertEquals(RefreshState.IN_FLIGHT, h.manager.state());
            CompletableFuture<Cluster> b = h.waiting(() -> h.manager.awaitTopic("b", h.deadline(60_000)));
            h.manager.poll(h.now());
            assertNull(h.manager.beginRefresh(h.now()), "no second request while one is in flight");
            h.manager.onResponse(first, h.broker.respond(first), h.now());
            assertEquals(1, result(a).partitionCount("a"));
            assertFalse(b.isDone());
            assertEquals(RefreshState.NEED_UPDATE, h.manager.state());
            RefreshRequest second = h.step();
            assertEquals(Set.of("b"), second.topics(), "the topic asked for while in flight makes the next request");
            assertEquals(1, result(b).partitionCount("b"));
        }
    }

    @Test
    void awaitUpdateIsReleasedByTheNextAnswerAndTimesOutOtherwise() throws Exception {
        try (Harness h = new Harness()) {
            h.step();
            int v = h.manager.requestUpdate();
            CompletableFuture<Object> f = h.waiting(() -> {
                h.manager.awaitUpdate(v, h.manager.newDeadline(Duration.ofSeconds(60)));
                return "done";
            });
            h.advance(100);
            RefreshRequest r = h.step();
            assertTrue(r.isFull(), "requestUpdate() asks for a full refresh");
            assertEquals("done", result(f));
            assertTrue(h.manager.fetch().version() > v);
            int v2 = h.manager.fetch().version();
            CompletableFuture<Object> g = h.waiting(() -> {
                h.manager.awaitUpdate(v2, h.manager.newDeadline(Duration.ofSeconds(1)));
                return "done";
            });
            h.advance(1_001);
            assertInstanceOf(MetadataTimeoutException.class, failure(g));
        }
    }

    @Test
    void closeReleasesEveryWaiterAtOnce() throws Exception {
        try (Harness h = new Harness()) {
            h.step();
            List<CompletableFuture<?>> waits = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                String topic = "t" + i;
                waits.add(h.waiting(() -> h.manager.awaitTopic(topic, h.deadline(600_000))));
            }
            int v = h.manager.fetch().version();
            waits.add(h.waiting(() -> {
                h.manager.awaitUpdate(v, h.manager.newDeadline(Duration.ofSeconds(600)));
                return null;
            }));
            h.manager.close();
            for (CompletableFuture<?> w : waits) {
                assertInstanceOf(MetadataClosedException.class, failure(w));
            }
            assertEquals(RefreshState.CLOSED, h.manager.state());
            assertThrows(MetadataClosedException.class, () -> h.manager.awaitTopic("t0", h.deadline(10)));
            assertEquals(Long.MAX_VALUE, h.manager.poll(h.now()));
            assertNull(h.manager.beginRefresh(h.now()));
        }
    }

    @Test
    void fatalErrorReachesEveryWaiterAndClearsOnTheNextAnswer() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("a", 1, 0);
            h.step();
            List<CompletableFuture<?>> waits = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                waits.add(h.waiting(() -> h.manager.awaitTopic("x" + Thread.currentThread().getId(),
                        h.deadline(600_000))));
            }
            h.manager.poll(h.now());
            RefreshRequest r = h.manager.beginRefresh(h.now());
            // its ERROR line is expected: taken from System.err, where slf4j-simple writes at each line, and asserted
            java.io.PrintStream err = System.err;
            java.io.ByteArrayOutputStream logged = new java.io.ByteArrayOutputStream();
            System.setErr(new java.io.PrintStream(logged, true, java.nio.charset.StandardCharsets.UTF_8));
            try {
                h.manager.onFatal(r, new IllegalStateException("SASL authentication failed"), h.now());
            } finally {
                System.setErr(err);
            }
            assertTrue(logged.toString(java.nio.charset.StandardCharsets.UTF_8).contains("ERROR dev.kmeta.metadata."
                    + "internal.MetadataManager - [test] metadata unavailable: java.lang.IllegalStateException: SASL "
                    + "authentication failed"), logged.toString(java.nio.charset.StandardCharsets.UTF_8));
            for (CompletableFuture<?> w : waits) {
                Throwable t = failure(w);
                assertInstanceOf(MetadataFatalException.class, t);
                assertTrue(t.getMessage().contains("SASL authentication failed"));
            }
            assertThrows(MetadataFatalException.class, () -> h.manager.awaitTopic("a", h.deadline(10)));
            h.advance(1_000);
            h.step(); // the retried request is answered: the fatal error is over
            CompletableFuture<Cluster> a = h.waiting(() -> h.manager.awaitTopic("a", h.deadline(10_000)));
            h.step();
            assertEquals(1, result(a).partitionCount("a"), "an answer clears the fatal error");
        }
    }

    @Test
    void unauthorizedTopicFailsItsWaitersOnlyAndAtOnce() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("ok", 1, 0);
            h.broker.denied.add("secret");
            h.step();
            CompletableFuture<Cluster> denied = h.waiting(() -> h.manager.awaitTopic("secret", h.deadline(60_000)));
            CompletableFuture<Cluster> other = h.waiting(() -> h.manager.awaitTopic("later", h.deadline(60_000)));
            h.step();
            TopicException e = (TopicException) failure(denied);
            assertEquals(TopicException.Reason.NOT_AUTHORIZED, e.reason());
            assertFalse(other.isDone(), "a waiter for another topic is not disturbed");
            assertThrows(TopicException.class, () -> h.manager.awaitTopic("secret", h.deadline(60_000)),
                    "later sends fail at once");
            h.manager.close();
        }
    }

    @Test
    void partitionOutOfRangeWaitsForPartitionsToBeAdded() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("grow", 2, 0);
            h.step();
            h.manager.awaitTopic("grow", h.deadline(0));
        } catch (MetadataTimeoutException expected) {
            // subscribed, not yet fetched
        }
        try (Harness h = new Harness()) {
            h.broker.topic("grow", 2, 0);
            CompletableFuture<Cluster> known = h.waiting(() -> h.manager.awaitTopic("grow", h.deadline(1_000)));
            h.step();
            result(known);
            CompletableFuture<Cluster> f = h.waiting(() -> h.manager.awaitTopic("grow", 3, h.deadline(10_000)));
            h.step();
            assertFalse(f.isDone());
            h.broker.topic("grow", 4, 0);
            h.advance(200);
            h.step();
            assertEquals(4, result(f).partitionCount("grow"));
        }
    }

    @Test
    void partitionOutOfRangeTimeoutSaysTheCount() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("small", 2, 0);
            CompletableFuture<Cluster> known = h.waiting(() -> h.manager.awaitTopic("small", h.deadline(1_000)));
            h.step();
            result(known);
            CompletableFuture<Cluster> f = h.waiting(() -> h.manager.awaitTopic("small", 5, h.deadline(3_000)));
            h.step();
            h.advance(3_001);
            Throwable t = failure(f);
            assertTrue(t.getMessage().startsWith("Partition 5 of topic small not present in metadata after 3000 ms"));
            assertTrue(t.getMessage().contains("has 2 partitions"), t.getMessage());
        }
    }

    @Test
    void subscriptionsAreIdempotentAndBounded() {
        try (Harness h = new Harness(Map.of("kmeta.metadata.max.topics", "3"))) {
            for (int i = 0; i < 100_000; i++) {
                try {
                    h.manager.awaitTopic("same", h.deadline(0));
                } catch (MetadataTimeoutException expected) {
                    // not fetched
                }
            }
            assertEquals(Set.of("same"), h.manager.subscribedTopics());
            for (String t : List.of("b", "c")) {
                assertThrows(MetadataTimeoutException.class, () -> h.manager.awaitTopic(t, h.deadline(0)));
            }
            TooManyTopicsException e = assertThrows(TooManyTopicsException.class,
                    () -> h.manager.awaitTopic("d", h.deadline(0)));
            assertTrue(e.getMessage().contains("kmeta.metadata.max.topics is 3"), e.getMessage());
            assertEquals(3, h.manager.subscribedTopics().size());
            h.manager.poll(h.now());
            RefreshRequest r = h.manager.beginRefresh(h.now());
            assertFalse(r.topics().contains("d"), "nothing is sent for a rejected name");
        }
    }

    @Test
    void failedRequestsLeaveNothingBehindAndBackOffExponentially() {
        try (Harness h = new Harness()) {
            List<Long> sentAt = new ArrayList<>();
            for (int i = 0; i < 6000; i++) {
                if (h.stepFailing("connection refused") != null) {
                    sentAt.add(h.now());
                }
                h.advance(1);
            }
            List<Long> gaps = new ArrayList<>();
            for (int i = 1; i < sentAt.size(); i++) {
                gaps.add(sentAt.get(i) - sentAt.get(i - 1));
            }
            assertEquals(List.of(100L, 200L, 400L, 800L, 1000L, 1000L), gaps.subList(0, 6));
            assertTrue(h.manager.subscribedTopics().isEmpty());
            assertEquals(sentAt.size(), h.manager.counters().requestsFailed());
        }
    }

    @Test
    void newTopicSkipsTheBackoffOnceButAMissingTopicIsRetriedWithBackoff() throws Exception {
        try (Harness h = new Harness()) {
            h.step();
            h.advance(10);
            CompletableFuture<Cluster> f = h.waiting(() -> h.manager.awaitTopic("ghost", h.deadline(60_000)));
            assertNotNull(h.step(), "a new topic goes out at once, inside the backoff");
            // The first answer without news: retry.backoff.ms, as kafka-clients waits between its asks (a topic
            // created a moment ago may be unknown to the answering broker for a few ms); the next ones double.
            for (long backoffMs : new long[] {100, 200, 400}) {
                int sent = h.broker.requests.size();
                for (int i = 0; i < backoffMs - 1; i++) {
                    h.step();
                    h.advance(1);
                }
                assertEquals(sent, h.broker.requests.size(), "no retry inside " + backoffMs + " ms");
                h.advance(1);
                assertNotNull(h.step(), "the retry after " + backoffMs + " ms");
            }
            h.manager.close();
            failure(f);
        }
    }

    @Test
    void periodicFullRefreshAfterMaxAge() {
        try (Harness h = new Harness(Map.of("metadata.max.age.ms", "10000"))) {
            h.step();
            assertEquals(10_000, h.manager.poll(h.now()));
            h.advance(9_999);
            assertNull(h.step());
            h.advance(1);
            RefreshRequest r = h.step();
            assertNotNull(r);
            assertTrue(r.isFull());
        }
    }

    @Test
    void staleEpochsNeverWinAndMinusOneNeverReplacesARealEpoch() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("t", 2, 5);
            h.learn("t");
            h.broker.leader("t", 0, 2, 3); // older epoch, other leader
            h.broker.leader("t", 1, 2, -1); // no epoch
            h.manager.requestUpdate();
            h.advance(100);
            h.step();
            Cluster c = h.manager.fetch();
            assertEquals(0, c.leader("t", 0).id());
            assertEquals(5, c.partition("t", 0).leaderEpoch());
            assertEquals(1, c.leader("t", 1).id());
            assertEquals(1, h.manager.counters().staleEpochsRejected());
            h.broker.leader("t", 0, 2, 6);
            h.manager.requestUpdate();
            h.advance(1000);
            h.step();
            assertEquals(2, h.manager.fetch().leader("t", 0).id(), "a newer epoch wins");
        }
    }

    @Test
    void aConsistentlyLowerEpochIsAcceptedAfterNAnswers() throws Exception {
        try (Harness h = new Harness(Map.of("kmeta.metadata.epoch.rewind.accept.count", "3"))) {
            h.broker.topic("t", 1, 9);
            h.learn("t");
            h.broker.leader("t", 0, 1, 2);
            for (int i = 0; i < 2; i++) {
                h.manager.requestUpdate();
                h.advance(1000);
                h.step();
                assertEquals(9, h.manager.fetch().partition("t", 0).leaderEpoch());
            }
            h.manager.requestUpdate();
            h.advance(1000);
            h.step();
            assertEquals(2, h.manager.fetch().partition("t", 0).leaderEpoch(), "the rewind escape accepts it");
        }
    }

    @Test
    void topicRecreatedWithNewIdResetsEpochsAndMayShrink() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("t", 4, 7);
            h.learn("t");
            h.broker.topics.put("t", TopicMetadata.of("t", java.util.UUID.randomUUID(), false, (short) 0,
                    List.of(FakeBroker.partition("t", 0, 1, 0), FakeBroker.partition("t", 1, 2, 0))));
            h.manager.requestUpdate();
            h.advance(100);
            h.step();
            Cluster c = h.manager.fetch();
            assertEquals(2, c.partitionCount("t"), "a re-created topic's count follows the new topic");
            assertEquals(0, c.partition("t", 0).leaderEpoch());
        }
    }

    @Test
    void partitionCountNeverShrinksOnOneAnswer() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("t", 4, 1);
            h.learn("t");
            TopicMetadata full = h.broker.topics.get("t");
            h.broker.topics.put("t", TopicMetadata.of("t", full.topicId(), false, (short) 0,
                    List.of(full.partition(0), full.partition(1))));
            h.manager.requestUpdate();
            h.advance(100);
            h.step();
            assertEquals(4, h.manager.fetch().partitionCount("t"));
        }
    }

    @Test
    void leaderNotInBrokerListMeansNoLeaderAndFastRefreshUntilKnown() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("t", 2, 1);
            h.broker.leader("t", 1, 7, 2); // broker 7 is not listed
            h.learn("t");
            assertNull(h.manager.fetch().leader("t", 1));
            assertEquals(1, h.manager.fetch().availablePartitions("t").size());
            List<Long> sentAt = new ArrayList<>();
            long start = h.now();
            for (int i = 0; i < 2000; i++) {
                if (h.step() != null) {
                    sentAt.add(h.now() - start);
                }
                h.advance(1);
            }
            assertEquals(List.of(100L, 300L, 700L, 1500L), sentAt.subList(0, 4), "100 ms doubling");
            h.broker.brokers.add(new Node(7, "127.0.0.1", 9099));
            long last = sentAt.get(sentAt.size() - 1);
            for (int i = 0; i < 1000 && h.step() == null; i++) {
                h.advance(1);
            }
            assertEquals(7, h.manager.fetch().leader("t", 1).id());
            int sent = h.broker.requests.size();
            for (int i = 0; i < 5000; i++) {
                h.step();
                h.advance(1);
            }
            assertEquals(sent, h.broker.requests.size(), "fast refresh stops once every leader is known");
            assertTrue(last > 0);
        }
    }

    @Test
    void leaderHintNewerIsAppliedBumpsVersionAndWakesOnlyThatTopic() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("t", 2, 3).topic("u", 1, 0);
            h.learn("t", "u");
            int v = h.manager.fetch().version();
            h.manager.onLeaderHint("t", 0, 2, 4, new Node(2, "127.0.0.1", 9094));
            h.manager.onLeaderHint("t", 1, 0, 2, null); // stale
            h.manager.poll(h.now());
            Cluster c = h.manager.fetch();
            assertEquals(v + 1, c.version());
            assertEquals(2, c.leader("t", 0).id());
            assertEquals(4, c.partition("t", 0).leaderEpoch());
            assertEquals(1, c.leader("t", 1).id());
            assertEquals(1, h.manager.counters().leaderHintsApplied());
            assertEquals(1, h.manager.counters().leaderHintsIgnored());
            assertSame(h.manager.fetch().topic("u"), c.topic("u"));
        }
    }

    @Test
    void leaderHintWithANewEndpointAddsTheBroker() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("t", 1, 3);
            h.learn("t");
            h.manager.onLeaderHint("t", 0, 9, 4, new Node(9, "127.0.0.1", 9999));
            h.manager.poll(h.now());
            assertEquals(9999, h.manager.fetch().leader("t", 0).port());
        }
    }

    @Test
    void unusableLeaderHintAsksForARefreshOfThatTopicOnly() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("t", 1, 3).topic("u", 1, 0);
            h.learn("t", "u");
            h.manager.onLeaderHint("t", 0, -1, -1, null);
            h.advance(100);
            RefreshRequest r = h.step();
            assertFalse(r.isFull());
            assertEquals(Set.of("t"), r.topics());
        }
    }

    @Test
    void invalidationRefreshesOnlyThatTopic() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("t", 1, 3).topic("u", 1, 0);
            h.learn("t", "u");
            h.manager.invalidate("u", 0);
            h.manager.invalidate("u", 0);
            h.advance(100);
            RefreshRequest r = h.step();
            assertEquals(Set.of("u"), r.topics());
            assertNull(h.step());
        }
    }

    @Test
    void disconnectOfALeaderRefreshesTheTopicsItLeads() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("t", 1, 3).topic("u", 3, 0);
            h.learn("t", "u");
            h.manager.onNodeDisconnected(2, h.now());
            h.advance(100);
            assertEquals(Set.of("u"), h.step().topics(), "only u has a partition led by broker 2");
        }
    }

    @Test
    void idleTopicsExpireButNotWhileAWaiterWaits() throws Exception {
        try (Harness h = new Harness(Map.of("metadata.max.idle.ms", "5000"))) {
            h.broker.topic("t", 1, 0);
            CompletableFuture<Cluster> f = h.waiting(() -> h.manager.awaitTopic("t", h.deadline(1_000)));
            CompletableFuture<Cluster> ghost = h.waiting(() -> h.manager.awaitTopic("ghost", h.deadline(60_000)));
            h.step();
            result(f);
            h.advance(6_000);
            h.manager.poll(h.now());
            assertEquals(Set.of("ghost"), h.manager.subscribedTopics(), "t expired, ghost has a waiter");
            assertNull(h.manager.fetch().topic("t"));
            assertEquals(1, h.manager.counters().topicsExpired());
            h.manager.close();
            failure(ghost);
        }
    }

    @Test
    void aCacheHitKeepsItsTopicFromExpiring() throws Exception {
        try (Harness h = new Harness(Map.of("metadata.max.idle.ms", "5000"))) {
            h.broker.topic("t", 1, 0);
            h.learn("t");
            h.advance(4_000);
            h.manager.poll(h.now());
            assertEquals(1, h.manager.awaitTopic("t", h.deadline(0)).partitionCount("t"), "a cache hit");
            h.advance(4_000);
            h.manager.poll(h.now());
            assertEquals(Set.of("t"), h.manager.subscribedTopics(), "used 4 s ago: kept");
            h.advance(2_000);
            h.manager.poll(h.now());
            assertEquals(Set.of(), h.manager.subscribedTopics(), "unused for 6 s: expired");
        }
    }

    @Test
    void hitsStampedOnTheTopicStillKeepItsSubscription() throws Exception {
        try (Harness h = new Harness(Map.of("metadata.max.idle.ms", "5000"))) {
            h.broker.topic("t", 1, 0);
            h.learn("t");
            // 20 s of hits every 0.5 s: most skip the subscription lookup (the topic's stamp is under 1 s old), and
            // the subscription must still see them all.
            for (int i = 0; i < 40; i++) {
                h.advance(500);
                h.manager.poll(h.now());
                assertEquals(1, h.manager.awaitTopic("t", h.deadline(0)).partitionCount("t"));
            }
            assertEquals(Set.of("t"), h.manager.subscribedTopics(), "in use the whole time");
            h.advance(4_000);
            h.manager.poll(h.now());
            assertEquals(Set.of("t"), h.manager.subscribedTopics(), "last used 4-5 s ago: kept");
            h.advance(3_000);
            h.manager.poll(h.now());
            assertEquals(Set.of(), h.manager.subscribedTopics(), "unused for 7 s: expired");
        }
    }

    @Test
    void clusterIdChangeIsDetectedAndMetadataIsNotMixed() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("a", 1, 0).topic("b", 1, 0);
            h.learn("a", "b");
            h.broker.clusterId = "cluster-B";
            h.broker.topics.remove("b");
            h.manager.invalidate("a", 0);
            h.advance(100);
            RefreshRequest r = h.step();
            assertEquals(Set.of("a"), r.topics());
            Cluster c = h.manager.fetch();
            assertEquals("cluster-B", c.clusterId());
            assertNull(c.topic("b"), "topics of the old cluster are dropped");
            assertEquals(1, h.manager.counters().clusterIdChanges());
        }
    }

    @Test
    void answerWithoutBrokersIsNotBelieved() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("a", 1, 0);
            h.learn("a");
            Cluster before = h.manager.fetch();
            h.broker.brokers.clear();
            h.manager.requestUpdate();
            h.advance(100);
            h.step();
            assertSame(before, h.manager.fetch());
            assertEquals(1, h.manager.counters().responsesRejected());
            assertEquals(RefreshState.NEED_UPDATE, h.manager.state());
        }
    }

    @Test
    void oneBudgetAcrossSubscriptionInvalidationAndBufferWaits() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("t", 2, 0);
            h.step();
            Deadline send = h.deadline(10_000);
            CompletableFuture<Cluster> first = h.waiting(() -> h.manager.awaitTopic("t", send));
            h.advance(3_000); // subscription refresh takes 3 s
            h.step();
            result(first);
            assertEquals(7_000, send.remainingMs());
            h.broker.leader("t", 1, 1, 1);
            h.broker.topics.put("t", h.broker.topics.get("t").withPartition(
                    new dev.kmeta.cluster.PartitionMetadata("t", 1, -1, 1, new int[] {1}, new int[] {}, new int[] {1},
                            (short) 5)));
            h.manager.requestUpdate();
            h.advance(100);
            h.step();
            assertNull(h.manager.fetch().leader("t", 1));
            CompletableFuture<Cluster> second = h.waiting(() -> h.manager.awaitTopic("t", 1, send));
            h.advance(4_000); // invalidation refresh takes 4 s
            h.broker.leader("t", 1, 1, 2);
            h.step();
            assertEquals(1, result(second).leader("t", 1).id());
            long bufferBudgetMs = send.remainingMs();
            assertEquals(2_900, bufferBudgetMs, "what is left goes to the buffer wait");
            h.advance(bufferBudgetMs); // the buffer wait uses the rest
            assertTrue(send.isExpired());
            assertTrue(send.elapsedMs() <= send.budgetMs(), "the total never exceeds the budget");
            assertThrows(MetadataTimeoutException.class, () -> h.manager.awaitTopic("other", send));
        }
    }

    @Test
    void waitersAreWokenOnlyForTheirTopic() throws Exception {
        try (Harness h = new Harness()) {
            for (int i = 0; i < 50; i++) {
                h.broker.topic("t" + i, 1, 0);
            }
            h.step();
            List<CompletableFuture<Cluster>> waits = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                String topic = "t" + i;
                waits.add(h.waiting(() -> h.manager.awaitTopic(topic, h.deadline(600_000))));
            }
            // answer only t7
            h.manager.poll(h.now());
            RefreshRequest all = h.manager.beginRefresh(h.now());
            RefreshRequest only = new RefreshRequest(all.id(), all.isFull(), Set.of("t7"), true);
            // the manager checks identity of the in-flight request: answer the real one with t7's metadata only
            RefreshResponse answer = h.broker.respond(only);
            h.manager.onResponse(all, answer, h.now());
            // Right after the answer, before any woken thread could queue itself again: the 49 others were not
            // taken off their queues (woken), though the request asked for their topics too.
            for (int i = 0; i < 50; i++) {
                if (i != 7) {
                    assertTrue(h.manager.hasParkedWaiter("t" + i), "t" + i + "'s waiter was woken for nothing");
                }
            }
            assertEquals(1, result(waits.get(7)).partitionCount("t7"));
            for (int i = 0; i < 50; i++) {
                if (i != 7) {
                    assertFalse(waits.get(i).isDone(), "t" + i + " was not answered and must still wait");
                }
            }
            h.manager.close();
        }
    }

    @Test
    void awaitTopicRejectsBadArguments() {
        try (Harness h = new Harness()) {
            assertThrows(IllegalArgumentException.class, () -> h.manager.awaitTopic("t", -2, h.deadline(10)));
            assertThrows(NullPointerException.class, () -> h.manager.awaitTopic(null, h.deadline(10)));
            assertThrows(IllegalArgumentException.class, () -> h.manager.awaitUpdate(0, h.manager.newDeadline(Duration.ofMillis(-1))));
            assertEquals(MetadataClient.ANY_PARTITION, -1);
        }
    }
}
