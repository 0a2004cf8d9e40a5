package dev.kmeta.sender;

import org.apache.kafka.common.KafkaException;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClient;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static dev.kmeta.sender.ItSupport.millisSince;
import static dev.kmeta.sender.ItSupport.report;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The backoff on a multi-broker KRaft cluster (issue 14 item 3). KRaft brokers report a random live broker as the
 * Metadata answer's "controller", so on three brokers nearly every answer reports another id; kmeta took that for news
 * and reset its backoff, sending ~5 requests a second for a partition that does not exist (one broker always reports
 * itself, which is why single-broker tests never saw it). Here, on three in-process brokers behind FaultProxies (the
 * brokers advertise their proxies, so every metadata request of the client passes one), threads wait for partitions
 * the brokers cannot give - partition 5 of a topic re-created with 3 partitions instead of 6 (1 thread), of a
 * 3-partition topic (50 threads), a partition without a leader - and the MetadataRequests counted at the proxies over a
 * window stay within what the configured backoff allows.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiBrokerBackoffTest {
    private static final short METADATA = 3;
    // The windows, budgets and backoffs are half of what the issue measured (10 s, 2 s, 100 ms doubling to 1 s): the
    // bounds scale with them, and the bug (the backoff reset by every answer) still sends about three times the bound.
    private static final long WINDOW_MS = 5_000;
    private static final long LEADERLESS_WINDOW_MS = 2_500;
    private static final long CALL_BUDGET_MS = 1_000;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.of(KafkaCluster.builder().brokers(3).withProxies());

    private static Map<String, Object> props(String clientId) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", KAFKA.cluster().proxiedBootstrapServers());
        p.put("client.id", clientId);
        p.put("allow.auto.create.topics", false);
        p.put("retry.backoff.ms", 50);
        p.put("retry.backoff.max.ms", 500);
        p.put("kmeta.metadata.leaderless.refresh.ms", 50);
        p.put("kmeta.metadata.jitter", 0.2);
        return p;
    }

    /**
     * The most MetadataRequests the backoff allows in {@code windowMs} when no answer brings news: one at the window's
     * start, then spacings as short as the configuration allows - {@code baseMs} (the answer before the window may
     * have been news), then for each answer without news {@code baseMs} (the first) doubling to
     * {@code retry.backoff.max.ms}, each shortened by the full jitter - plus one in flight at the window's end.
     *
     * @param baseMs {@code retry.backoff.ms}, or for a refresh of leaderless partitions only, the smaller of it and
     *               {@code kmeta.metadata.leaderless.refresh.ms}
     */
    static long requestBound(MetadataConfig config, long baseMs, long windowMs) {
        double shortest = 1 - config.jitter();
        long requests = 1;
        double t = baseMs * shortest;
        for (int noNews = 0; t <= windowMs; noNews++) {
            requests++;
            t += Math.min(config.retryBackoffMaxMs(), baseMs << Math.min(noNews, 30)) * shortest;
        }
        return requests + 1;
    }

    private static List<FaultProxy> proxies() {
        List<FaultProxy> proxies = new ArrayList<>();
        for (int id : KAFKA.cluster().brokerIds()) {
            proxies.add(KAFKA.cluster().proxy(id));
        }
        return proxies;
    }

    private static long metadataRequestsAtProxies() {
        long n = 0;
        for (FaultProxy p : proxies()) {
            n += p.requestCount(METADATA);
        }
        return n;
    }

    /** What one window saw. */
    private record Window(long requests, long sent, long elapsedMs, long calls, Set<Integer> controllerIds) {
    }

    /**
     * {@code threads} threads call {@code awaitTopic(topic, partition, 1 s)} in a loop (a producer's sends with
     * {@code max.block.ms} = 1 s) while the window lasts; the proxies' counts are reset as they start.
     */
    private static Window window(KafkaMetadata m, String topic, int partition, int threads, long windowMs)
            throws Exception {
        Map<String, Throwable> unexpected = new ConcurrentHashMap<>();
        AtomicLong calls = new AtomicLong();
        AtomicBoolean over = new AtomicBoolean();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                while (!over.get()) {
                    try {
                        m.awaitTopic(topic, partition, m.newDeadline(Duration.ofMillis(CALL_BUDGET_MS)));
                        unexpected.putIfAbsent("returned", new AssertionError(topic + "-" + partition + " was found"));
                        return;
                    } catch (TimeoutException e) {
                        calls.incrementAndGet();
                    } catch (KafkaException e) {
                        if (!(e.getCause() instanceof MetadataClosedException)) {
                            unexpected.putIfAbsent(e.getClass().getName(), e);
                        }
                        return;
                    } catch (RuntimeException e) {
                        unexpected.putIfAbsent(e.getClass().getName(), e);
                        return;
                    }
                }
            }, "it-backoff-" + i);
            t.setDaemon(true);
            waiters.add(t);
            t.start();
        }
        Set<Integer> controllerIds = new TreeSet<>();
        proxies().forEach(FaultProxy::resetCounters);
        long sentBefore = m.stats().requestsSent();
        long start = System.nanoTime();
        go.countDown();
        // Sampling what the snapshots report as the controller, at the test's pace (a bounded wait, not a sleep).
        await().atMost(Duration.ofMillis(windowMs + 5_000)).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    controllerIds.add(m.fetch().controllerId());
                    return millisSince(start) >= windowMs;
                });
        long requests = metadataRequestsAtProxies();
        long sent = m.stats().requestsSent() - sentBefore;
        long elapsed = millisSince(start);
        over.set(true);
        m.close(); // releases every wait at once
        for (Thread t : waiters) {
            t.join(10_000);
            assertFalse(t.isAlive(), t.getName() + " still waits");
        }
        assertTrue(unexpected.isEmpty(), "unexpected outcomes: " + unexpected);
        return new Window(requests, sent, elapsed, calls.get(), controllerIds);
    }

    /**
     * @param recreated the case: the topic had 6 partitions when the client learned it, and was deleted and
     *                  created again with 3 while the producer goes on sending to partition 5
     */
    private static void unanswerablePartition(int threads, boolean recreated) throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        String topic = "small-" + threads;
        cluster.createTopic(topic, recreated ? 6 : 3, 3);
        try (KafkaMetadata m = KafkaMetadata.create(props("backoff-" + threads))) {
            assertEquals(recreated ? 6 : 3, m.awaitTopic(topic, MetadataClient.ANY_PARTITION,
                    m.newDeadline(Duration.ofSeconds(30))).partitionCount(topic));
            if (recreated) {
                cluster.deleteTopic(topic);
                cluster.createTopic(topic, 3, 3);
                // What a producer whose sends fail does: it asks for fresh metadata (a new topic id: count 3).
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
                    m.requestUpdate();
                    return m.fetch().partitionCount(topic) == 3;
                });
            }
            Window w = window(m, topic, 5, threads, WINDOW_MS);
            long bound = requestBound(m.config(), m.config().retryBackoffMs(), w.elapsedMs());
            report("%d thread(s) waiting for partition 5 of a 3-partition topic%s on 3 brokers: %d MetadataRequests "
                    + "at the proxies in %d ms (%d sent; bound %d; %d timed-out calls; controller ids seen %s)",
                    threads, recreated ? " (re-created from 6)" : "", w.requests(), w.elapsedMs(), w.sent(), bound, w.calls(), w.controllerIds());
            assertTrue(w.requests() >= 5, "the partition was asked for again and again: " + w.requests());
            assertTrue(w.requests() <= bound, w.requests() + " MetadataRequests in " + w.elapsedMs()
                    + " ms, more than the backoff allows (" + bound + ")");
            assertTrue(w.requests() <= w.sent() + 1, "the proxies saw " + w.requests() + ", kmeta sent " + w.sent());
        }
    }

    @Test
    @Order(1)
    void oneThreadSendingToAPartitionGoneWithARecreationStaysWithinTheBackoff() throws Exception {
        unanswerablePartition(1, true);
    }

    @Test
    @Order(2)
    void fiftyThreadsWaitingForAMissingPartitionStayWithinTheBackoff() throws Exception {
        unanswerablePartition(50, false);
    }

    /**
     * A partition whose only replica's broker is stopped has no leader. Nobody waits for it (the sends go to the other
     * partitions): kmeta refreshes it on its own on the fast leaderless backoff, doubling to retry.backoff.max.ms.
     * Runs last: it stops a broker, and starts it again at the end.
     */
    @Test
    @Order(3)
    void aLeaderlessPartitionIsRefreshedWithinTheLeaderlessBackoff() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        String topic = "leaderless";
        cluster.createTopic(topic, 3, 1);
        int victim = cluster.leader(topic, 0);
        try (KafkaMetadata m = KafkaMetadata.create(props("backoff-leaderless"))) {
            assertEquals(3, m.awaitTopic(topic, MetadataClient.ANY_PARTITION, m.newDeadline(Duration.ofSeconds(30)))
                    .partitionCount(topic));
            cluster.stopBroker(victim);
            try {
                // What a producer whose sends to partition 0 fail does: it asks for fresh metadata.
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
                    m.requestUpdate();
                    return m.fetch().node(victim) == null && !m.fetch().partition(topic, 0).hasLeader();
                });
                Window w = window(m, topic, MetadataClient.ANY_PARTITION, 0, LEADERLESS_WINDOW_MS);
                long base = Math.min(m.config().retryBackoffMs(), m.config().leaderlessRefreshMs());
                long bound = requestBound(m.config(), base, w.elapsedMs());
                report("a leaderless partition on 3 brokers (one stopped): %d MetadataRequests at the proxies in %d ms "
                        + "(%d sent; bound %d; controller ids seen %s)", w.requests(), w.elapsedMs(), w.sent(), bound,
                        w.controllerIds());
                assertTrue(w.requests() >= 3, "the leaderless partition was refreshed: " + w.requests());
                assertTrue(w.requests() <= bound, w.requests() + " MetadataRequests in " + w.elapsedMs()
                        + " ms, more than the leaderless backoff allows (" + bound + ")");
            } finally {
                cluster.startBroker(victim);
            }
        }
    }
}
