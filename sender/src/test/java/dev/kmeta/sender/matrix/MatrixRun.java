package dev.kmeta.sender.matrix;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.sender.HostResolverHook;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;

import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One scenario of the fault matrix: two clients on the cluster under test, each with its {@link Load} of application
 * threads calling {@code awaitTopic} with short budgets from before the fault until the end.
 * <ul>
 *   <li>the <b>survivor</b> lives through the fault; once the fault ends its snapshot must agree with the Admin
 *       ({@link #converge}), and at {@link #finish()} it must show (b) no wait returned later than its deadline plus
 *       50 ms beyond what the machine explains ({@link OvershootBound}), (c) no waiter left parked, (d) no more
 *       metadata requests than the backoff allows, and nothing left behind once closed;</li>
 *   <li>the <b>closer</b> is closed while the fault is on ({@link #closeCloser()}): close returns within
 *       {@link #CLOSE_BOUND_MS}, every one of its waiters (among them one parked for a minute) is released with
 *       {@code MetadataClosedException}, its sender thread is gone, and every socket its Selector held is closed.</li>
 * </ul>
 * Metadata requests are counted at the FaultProxies (api key 3), where every byte of these clients passes.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class MatrixRun implements AutoCloseable {
    /** Metadata's api key, as the proxies count request frames. */
    static final short METADATA = 3;
    /** How long close() may take, and how long after it began every waiter must be released. */
    static final long CLOSE_BOUND_MS = 2_000;
    private static final long PARKED_BUDGET_MS = 60_000;
    private static final Duration CONVERGENCE = Duration.ofSeconds(30);
    private static final AtomicInteger RUNS = new AtomicInteger();

    private final String name;
    private final List<FaultProxy> proxies;
    private final Collection<Integer> clientPorts;
    private final Set<String> topicsAsked = ConcurrentHashMap.newKeySet();
    private final KafkaMetadata survivor;
    private final KafkaMetadata closer;
    private final long survivorStartNs;
    private final long closerStartNs;
    private Load survivorLoad;
    private Load closerLoad;
    private Load closerParked;
    private long survivorLifeMs = -1;
    private long closerLifeMs = -1;
    private final List<String> notes = new ArrayList<>();
    private final Hiccups hiccups;

    private MatrixRun(String name, Map<String, Object> props, HostResolverHook dns, List<FaultProxy> proxies,
                      Collection<Integer> clientPorts) {
        this.name = name;
        this.proxies = List.copyOf(proxies);
        this.clientPorts = List.copyOf(clientPorts);
        proxies.forEach(FaultProxy::resetCounters);
        hiccups = Hiccups.start(name);
        int run = RUNS.incrementAndGet();
        survivorStartNs = System.nanoTime();
        survivor = KafkaMetadata.builder(withClientId(props, name + "-survivor-" + run)).hostResolver(dns).build();
        closerStartNs = System.nanoTime();
        closer = KafkaMetadata.builder(withClientId(props, name + "-closer-" + run)).hostResolver(dns).build();
    }

    /**
     * Starts both clients and their load on {@code targets}.
     *
     * @param proxies     every proxy the clients' metadata requests may pass (their counts are reset now)
     * @param clientPorts every port the clients may connect to (proxies, CLIENT listeners): no socket of this
     *                    process may stay connected to one once both are closed
     */
    static MatrixRun start(String name, Map<String, Object> props, HostResolverHook dns, List<FaultProxy> proxies,
                           Collection<Integer> clientPorts, List<Load.Target> targets) {
        MatrixRun run = new MatrixRun(name, props, dns, proxies, clientPorts);
        targets.forEach(t -> run.topicsAsked.add(t.topic));
        String never = name + "-never";
        run.topicsAsked.add(never);
        run.survivorLoad = Load.start(run.survivor, name + "-survivor", targets, run.hiccups, 100, 250, 500);
        run.closerLoad = Load.start(run.closer, name + "-closer", targets, run.hiccups, 150, 400);
        run.closerParked = Load.start(run.closer, name + "-parked", List.of(Load.Target.topic(never)),
                run.hiccups, PARKED_BUDGET_MS);
        return run;
    }

    /** Client properties for the matrix: faults noticed within a second or two, refreshes every 3 s. */
    static Map<String, Object> props(String bootstrap) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("request.timeout.ms", 1_000);
        p.put("reconnect.backoff.ms", 50);
        p.put("reconnect.backoff.max.ms", 200);
        p.put("socket.connection.setup.timeout.ms", 500);
        p.put("socket.connection.setup.timeout.max.ms", 1_000);
        // Stands in for the invalidations a producer makes when its sends fail: the survivor converges on its own.
        p.put("metadata.max.age.ms", 3_000);
        p.put("metadata.recovery.rebootstrap.trigger.ms", 2_000);
        p.put("allow.auto.create.topics", false);
        return p;
    }

    private static Map<String, Object> withClientId(Map<String, Object> props, String clientId) {
        Map<String, Object> p = new HashMap<>(props);
        p.put("client.id", clientId);
        return p;
    }

    KafkaMetadata survivor() {
        return survivor;
    }

    KafkaMetadata closer() {
        return closer;
    }

    Load survivorLoad() {
        return survivorLoad;
    }

    /**
     * A send of the test's own on the survivor, waiting on a new daemon thread (counted among the topics asked for).
     */
    CompletableFuture<Cluster> send(String topic, int partition, long budgetMs) {
        topicsAsked.add(topic);
        CompletableFuture<Cluster> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(survivor.awaitTopic(topic, partition, survivor.newDeadline(Duration.ofMillis(budgetMs))));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "matrix-send-" + name + "-" + topic);
        t.setDaemon(true);
        t.start();
        return f;
    }

    /**
     * Both clients have metadata for {@code topic}, and each has had an answer from a broker it learned (not only from
     * a bootstrap address): the scenario starts from clients in their steady state.
     */
    void awaitReady(String topic) {
        topicsAsked.add(topic);
        for (KafkaMetadata client : List.of(survivor, closer)) {
            client.awaitTopic(topic, client.newDeadline(Duration.ofSeconds(30)));
            await().pollDelay(Duration.ZERO).atMost(Duration.ofSeconds(20)).until(() -> client.evidence().records()
                    .stream().anyMatch(r -> !r.isBootstrap() && r.answers() > 0));
        }
    }

    /** Failed requests and failed connection attempts of the survivor so far. */
    long survivorFailures() {
        long n = survivor.stats().requestsFailed();
        for (ConnectionEvidence.Record r : survivor.evidence().records()) {
            n += r.failures();
        }
        return n;
    }

    /**
     * Waits (bounded) until the survivor saw the fault: a request or a connection attempt failed after {@code before}
     * (a value of {@link #survivorFailures()}).
     */
    void awaitFaultSeen(long before) {
        try {
            await().pollDelay(Duration.ZERO).atMost(Duration.ofSeconds(15)).until(() -> survivorFailures() > before);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(name + ": nothing failed within 15 s; state " + survivor.state() + ", sent "
                    + survivor.stats().requestsSent() + ", failed " + survivor.stats().requestsFailed()
                    + ", evidence " + survivor.evidence().records(), e);
        }
    }

    /** A fault's duration (not a synchronization: the load runs meanwhile, whatever happens). */
    static void hold(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /**
     * A fault's duration that ends early once {@code seen} holds (polled every 20 ms): at most {@code maxMs}, the
     * fault's full length when what it should cause does not show.
     */
    void holdUntil(long maxMs, java.util.function.BooleanSupplier seen) {
        try {
            await().atMost(Duration.ofMillis(maxMs)).pollInterval(Duration.ofMillis(20)).until(seen::getAsBoolean);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            notes.add("held the fault " + maxMs + " ms: " + e.getMessage());
        }
    }

    /** Closes the closer now (during the fault) and checks what its close must do; returns close()'s duration. */
    long closeCloser() {
        await().pollDelay(Duration.ZERO).atMost(Duration.ofSeconds(10)).until(() -> closer.stats().waitersNow() >= 1);
        long parked = closer.stats().waitersNow();
        List<SocketChannel> sockets = selectorSockets(closer);
        long beganNs = System.nanoTime();
        closer.close();
        long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - beganNs);
        closerLifeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closerStartNs);
        closerLoad.join();
        closerParked.join();
        long releasedMs = checkReleased(beganNs, closerLoad, closerParked);
        assertTrue(closeMs <= CLOSE_BOUND_MS, name + ": close() took " + closeMs + " ms");
        assertTrue(releasedMs <= CLOSE_BOUND_MS, name + ": the last waiter was released " + releasedMs
                + " ms after close() began");
        assertEquals(0, closer.stats().waitersNow(), name + ": waiters left parked on the closed client");
        assertFalse(Leaks.senderThreadAlive(closer), name + ": the closed client's sender thread still runs");
        for (SocketChannel s : sockets) {
            assertFalse(s.isOpen(), name + ": a socket of the closed client is open: " + s);
        }
        assertEquals(0, Leaks.selectorChannels(closer), name + ": the closed client's Selector holds channels");
        checkLoad("closer", closerLoad);
        checkLoad("closer (parked)", closerParked);
        notes.add(String.format("closer: %d parked, %d sockets; close() %d ms, all waiters released in %d ms",
                parked, sockets.size(), closeMs, releasedMs));
        return closeMs;
    }

    private static List<SocketChannel> selectorSockets(KafkaMetadata client) {
        for (int attempt = 0; ; attempt++) {
            try {
                return Leaks.selectorSockets(client);
            } catch (ConcurrentModificationException e) {
                if (attempt == 10) {
                    throw e; // the sender thread's HashMap changed under the copy every time
                }
            }
        }
    }

    /** Every thread of these loads ended because the client closed; returns when the last saw it, ms after close. */
    private long checkReleased(long closeBeganNs, Load... loads) {
        long lastNs = closeBeganNs;
        for (Load load : loads) {
            assertEquals(0, load.alive(), name + ": load threads still running after close");
            Map<String, Long> ended = load.endedByCloseNs();
            assertEquals(load.threadCount(), ended.size(), name + ": every load thread ends with "
                    + "MetadataClosedException: " + ended.keySet());
            for (long n : ended.values()) {
                lastNs = Math.max(lastNs, n);
            }
        }
        return TimeUnit.NANOSECONDS.toMillis(lastNs - closeBeganNs);
    }

    private void checkLoad(String who, Load load) {
        List<Throwable> unexpected = load.unexpected();
        if (!unexpected.isEmpty()) {
            AssertionError e = new AssertionError(name + ": " + who + ": " + unexpected.size()
                    + " waits failed unexpectedly; first: " + unexpected.get(0), unexpected.get(0));
            throw e;
        }
        String late = OvershootBound.violation(name, who, hiccups.maxNs(), load.recorded());
        assertNull(late, () -> late + "; " + load);
    }

    /** (a): waits until the survivor agrees with the Admin of {@code cluster}; returns how long it took. */
    long converge(KafkaCluster cluster, Collection<String> topics, IntUnaryOperator clientPort) {
        long ms = Convergence.awaitAgreement(survivor, cluster, topics, clientPort, CONVERGENCE);
        notes.add("converged " + ms + " ms after the fault ended");
        return ms;
    }

    /** (a) for a cluster behind proxies: brokers are reached through their proxies. */
    long converge(KafkaCluster cluster, Collection<String> topics) {
        return converge(cluster, topics, id -> cluster.proxy(id).port());
    }

    /**
     * Stops the survivor's load and checks (b), (c), (d), then closes the survivor and checks that nothing is left:
     * no {@code kmeta-*} thread, no socket of this process connected to a client port. Prints what it measured.
     */
    void finish() {
        survivorLoad.stop();
        assertEquals(0, survivorLoad.alive(), name + ": load threads still running");
        checkLoad("survivor", survivorLoad);
        assertEquals(0, survivor.stats().waitersNow(), name + ": waiters left parked");
        assertTrue(survivorLoad.waits() > 0, name + ": the load made no wait");
        if (closerLifeMs < 0) {
            throw new AssertionError(name + ": the scenario never closed its closer during the fault");
        }
        survivor.close();
        survivorLifeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - survivorStartNs);
        checkRequests();
        await().pollDelay(Duration.ZERO).atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertEquals(List.of(),
                Leaks.socketsTo(clientPorts), name + ": sockets left connected to the cluster"));
        assertEquals(List.of(), Leaks.kmetaThreads(), name + ": threads left");
        hiccups.close();
        System.out.println("[matrix] " + name + ": survivor " + survivorLoad + "; closer " + closerLoad
                + "; longest platform stall " + hiccups.maxMs() + " ms; " + String.join("; ", notes));
    }

    /** (d): at most one request per backoff interval, plus the first, plus one per new topic (KIP-526 skip). */
    private void checkRequests() {
        long atProxies = 0;
        for (FaultProxy p : proxies) {
            atProxies += p.requestCount(METADATA);
        }
        long sent = survivor.stats().requestsSent() + closer.stats().requestsSent();
        long bound = requestBound(survivor.config(), survivorLifeMs, topicsAsked.size())
                + requestBound(closer.config(), closerLifeMs, topicsAsked.size());
        assertTrue(atProxies <= sent, name + ": the proxies saw " + atProxies + " metadata requests, the clients sent "
                + sent);
        assertTrue(sent <= bound, name + ": " + sent + " metadata requests in " + survivorLifeMs + " ms, bound " + bound);
        notes.add(String.format("metadata requests: %d at the proxies, %d sent, bound %d (%d ms, %d topics)",
                atProxies, sent, bound, survivorLifeMs, topicsAsked.size()));
    }

    /**
     * The most metadata requests one client may send in {@code lifeMs}: the first at once, one per new topic at once
     * (a topic never asked skips the backoff once), and then one per shortest backoff interval - the retry backoff
     * after news, and after failures or answers without news that backoff (or the leaderless one) doubled, all with
     * jitter: {@code min(retry.backoff.ms, 2 * leaderless.refresh.ms) * (1 - jitter)}.
     */
    static long requestBound(MetadataConfig config, long lifeMs, int topics) {
        double spacingMs = config.retryBackoffMs();
        if (config.leaderlessRefreshMs() > 0) {
            spacingMs = Math.min(spacingMs, 2.0 * config.leaderlessRefreshMs());
        }
        spacingMs *= 1 - config.jitter();
        return 1 + topics + (long) Math.ceil(lifeMs / spacingMs);
    }

    /** Stops the load and closes both clients (idempotent): after a failure, nothing is left for the next test. */
    @Override
    public void close() {
        hiccups.close();
        closer.close();
        survivor.close(); // releases every wait at once, so the loads end without waiting out their budgets
        for (Load load : new Load[] {survivorLoad, closerLoad, closerParked}) {
            if (load != null) {
                load.stop();
            }
        }
    }
}
