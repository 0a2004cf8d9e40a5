package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.TopicMetadata;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.MetadataTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.time.Duration;

/** The metadata age, the per-topic ages and the timeouts by cause that the MBean reports, on fake time. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AgeAndTimeoutCountersTest {

    @Test
    void beforeTheFirstAnswerTheAgeCountsFromStartNotFromTheEpoch() {
        try (Harness h = new Harness()) {
            assertEquals(0, h.manager.metadataAgeMs());
            h.advance(4_500);
            assertEquals(4_500, h.manager.metadataAgeMs(), "ms since the manager was made");
            h.stepFailing("refused");
            h.advance(500);
            assertEquals(5_000, h.manager.metadataAgeMs(), "a failed request is no refresh");
            h.advance(1_000);
            h.step();
            assertEquals(0, h.manager.metadataAgeMs(), "the first full answer resets it");
            h.advance(3_000);
            assertEquals(3_000, h.manager.metadataAgeMs());
        }
    }

    @Test
    void aPartialAnswerAgesTheTopicButNotTheMetadataLikeKafka() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 2, 0).topic("audit", 1, 0);
            h.step();
            h.advance(2_000);
            h.learn("orders");
            assertFalse(h.broker.requests.get(h.broker.requests.size() - 1).isFull());
            assertEquals(2_000, h.manager.metadataAgeMs(), "a partial answer is not kafka-clients' refresh");
            assertEquals(0, h.manager.topicAgeMs("orders"));
            h.advance(1_000);
            h.learn("audit");
            assertEquals(Map.of("orders", 1_000L, "audit", 0L), h.manager.topicAgesMs());

            h.advance(700);
            h.manager.requestUpdate();
            assertTrue(h.step().isFull());
            assertEquals(0, h.manager.metadataAgeMs());
            assertEquals(Map.of("orders", 0L, "audit", 0L), h.manager.topicAgesMs(), "a full answer covers all");
        }
    }

    /**
     * An answer that names the topic with an error and no partitions (LEADER_NOT_AVAILABLE while a re-created topic's
     * partitions are placed) leaves the old data in the snapshot: it is no refresh of it, so the topic's age goes on.
     * (The KafkaProducer route trusts a topic for a request kafka-clients never rebuilds only once an answer described
     * it after the producer began using it: an error-only answer must not count.)
     */
    @Test
    void anAnswerWithOnlyAnErrorIsNoRefreshOfTheTopic() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 2, 0);
            h.learn("orders");
            h.advance(2_000);
            h.broker.topics.put("orders", dev.kmeta.cluster.TopicMetadata.of("orders", null, false, (short) 5,
                    List.of()));
            h.manager.invalidate("orders", 0);
            h.advance(100); // the retry backoff
            h.step();
            assertEquals(2, h.manager.fetch().topic("orders").partitionCount(), "the old data is kept");
            assertEquals(2_100, h.manager.topicAgeMs("orders"), "and it is as old as it was");
        }
    }

    @Test
    void aTopicNoAnswerDescribedHasNoAge() throws Exception {
        try (Harness h = new Harness()) {
            h.step();
            assertThrows(MetadataTimeoutException.class, () -> h.manager.awaitTopic("ghost", h.deadline(0)));
            h.step(); // the brokers answer UNKNOWN_TOPIC_OR_PARTITION
            assertEquals(-1, h.manager.topicAgeMs("ghost"), "subscribed but never described");
            assertEquals(-1, h.manager.topicAgeMs("never-subscribed"));
            assertTrue(h.manager.topicAgesMs().isEmpty());
            assertEquals(1, h.manager.subscribedTopics().size());
        }
    }

    @Test
    void aTimeoutIsCountedUnderItsDiagnosedCause() throws Exception {
        try (Harness h = new Harness()) {
            h.step();
            CompletableFuture<Cluster> f = h.waiting(() -> h.manager.awaitTopic("ghost", h.deadline(1_000)));
            h.step();
            h.advance(1_001);
            MetadataTimeoutException e = assertInstanceOf(MetadataTimeoutException.class, failure(f));
            assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, e.diagnosis().cause());
            Counters counters = h.manager.counters();
            assertEquals(1, counters.waitTimeouts(Diagnosis.Cause.TOPIC_NOT_FOUND));
            assertEquals(1, counters.waitTimeouts());

            MetadataTimeoutException v = assertThrows(MetadataTimeoutException.class,
                    () -> h.manager.awaitUpdate(h.manager.fetch().version(), h.manager.newDeadline(Duration.ZERO)));
            Map<Diagnosis.Cause, Long> byCause = counters.waitTimeoutsByCause();
            assertEquals(Diagnosis.Cause.values().length, byCause.size(), "every cause, zeros included");
            for (Diagnosis.Cause c : Diagnosis.Cause.values()) {
                long expected = (c == Diagnosis.Cause.TOPIC_NOT_FOUND ? 1 : 0) + (c == v.diagnosis().cause() ? 1 : 0);
                assertEquals(expected, byCause.get(c), c.name());
            }
            assertEquals(2, counters.waitTimeouts());
        }
    }

    /**
     * A reader that sees the snapshot an answer produced also sees the ages that answer set (the MBean reads the
     * version and the ages separately; JmxTest reads them right after a wait returns). White-box: the manager reads
     * the answer's topics through {@code get} while it records the answer; each read probes what a reader would see
     * at that moment. With the snapshot published first, a probe saw the new version with the topic never described
     * and the metadata age still counting.
     */
    @Test
    void aReaderThatSeesTheNewSnapshotSeesTheAgesItBrought() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 2, 0);
            h.step();
            h.advance(3_000);
            CompletableFuture<Cluster> wait = h.waiting(() -> h.manager.awaitTopic("orders", h.deadline(1_000)));
            h.manager.requestUpdate();
            h.manager.poll(h.now());
            RefreshRequest request = h.manager.beginRefresh(h.now());
            assertTrue(request.isFull() && request.topics().contains("orders"), request.toString());
            int versionBefore = h.manager.fetch().version();
            List<String> seen = new ArrayList<>();
            RefreshResponse answer = h.broker.respond(request);
            Map<String, TopicMetadata> probed = new LinkedHashMap<>(answer.topics()) {
                private static final long serialVersionUID = 1L;

                @Override
                public TopicMetadata get(Object key) {
                    if (h.manager.fetch().version() > versionBefore) {
                        seen.add("topic age " + h.manager.topicAgeMs("orders") + ", metadata age "
                                + h.manager.metadataAgeMs());
                    }
                    return super.get(key);
                }
            };

            h.manager.onResponse(request, new RefreshResponse(answer.clusterId(), answer.controllerId(),
                    answer.brokers(), probed, answer.epochsTrusted(), answer.topLevelErrorCode()), h.now());

            for (String s : seen) {
                assertEquals("topic age 0, metadata age 0", s, "read with the new snapshot");
            }
            assertTrue(h.manager.fetch().version() > versionBefore);
            assertEquals(0, h.manager.topicAgeMs("orders"));
            assertEquals(0, h.manager.metadataAgeMs());
            assertEquals(2, wait.get(10, TimeUnit.SECONDS).partitionCount("orders"));
        }
    }

    private static Throwable failure(CompletableFuture<?> f) throws Exception {
        try {
            f.get(10, TimeUnit.SECONDS);
            throw new AssertionError("expected the wait to fail");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
