package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataException;
import dev.kmeta.metadata.Deadline;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.awaitility.Awaitility.await;

/**
 * A manager on fake time, a fake broker, and the test thread playing the sender: {@link #step()} runs one round of
 * what the sender thread does. Application threads are real threads.
 */
final class Harness implements AutoCloseable {
    final FakeTicker ticker = new FakeTicker();
    final FakeBroker broker = new FakeBroker();
    final MetadataManager manager;
    final AtomicInteger wakeups = new AtomicInteger();

    Harness() {
        this(Map.of());
    }

    Harness(Map<String, ?> overrides) {
        Map<String, Object> props = new HashMap<>();
        props.put("client.id", "test");
        props.put("kmeta.metadata.jitter", "0");
        props.putAll(overrides);
        manager = new MetadataManager(MetadataConfig.from(props), ticker);
        manager.setWaker(wakeups::incrementAndGet);
    }

    long now() {
        return ticker.nowMs();
    }

    /** One sender round: take commands; if a request is due, send it and apply the broker's answer. */
    RefreshRequest step() {
        manager.poll(now());
        RefreshRequest r = manager.beginRefresh(now());
        if (r != null) {
            manager.onResponse(r, broker.respond(r), now());
        }
        return r;
    }

    /** Like {@link #step()} but the request fails. */
    RefreshRequest stepFailing(String reason) {
        manager.poll(now());
        RefreshRequest r = manager.beginRefresh(now());
        if (r != null) {
            manager.onFailure(r, reason, now());
        }
        return r;
    }

    /** Moves fake time and lets parked waiters re-check their deadlines. */
    void advance(long ms) {
        ticker.advanceMs(ms);
        manager.wakeEveryWaiter();
    }

    Deadline deadline(long ms) {
        return Deadline.after(ms, ticker);
    }

    /** Starts {@code call} on a new thread and returns once that thread is parked in a wait. */
    <T> CompletableFuture<T> waiting(Supplier<T> call) {
        long before = manager.counters().waitersNow();
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(call.get());
            } catch (MetadataException | IllegalArgumentException e) {
                f.completeExceptionally(e);
            }
        }, "app");
        t.setDaemon(true);
        t.start();
        await().atMost(java.time.Duration.ofSeconds(10)).pollDelay(java.time.Duration.ZERO)
                .pollInterval(java.time.Duration.ofMillis(1)).until(() -> f.isDone()
                || (manager.counters().waitersNow() > before && t.getState() == Thread.State.TIMED_WAITING));
        return f;
    }

    /** Subscribes the topics (each through a waiting {@code awaitTopic}) and answers them in one sender round. */
    void learn(String... topics) throws Exception {
        java.util.List<CompletableFuture<dev.kmeta.cluster.Cluster>> waits = new java.util.ArrayList<>();
        for (String topic : topics) {
            waits.add(waiting(() -> manager.awaitTopic(topic, deadline(1_000))));
        }
        step();
        for (CompletableFuture<dev.kmeta.cluster.Cluster> w : waits) {
            w.get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        manager.close();
    }
}
