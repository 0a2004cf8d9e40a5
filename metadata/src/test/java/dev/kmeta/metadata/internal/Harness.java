package dev.kmeta.metadata.internal;

import dev.kmeta.faketime.FakeTicker;
import dev.kmeta.metadata.MetadataConfig;
import dev.kmeta.metadata.MetadataException;
import dev.kmeta.metadata.Deadline;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.time.Duration;

/**
 * A manager on fake time, a fake broker, and the test thread playing the sender: {@link #step()} runs one round of
 * what the sender thread does. Application threads are real threads; they park on the {@link FakeTicker}, which
 * wakes those whose deadlines {@link #advance} passes.
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

    /** Moves fake time: the ticker wakes the parked waiters whose deadlines passed. */
    void advance(long ms) {
        ticker.advanceMs(ms);
    }

    Deadline deadline(long ms) {
        return Deadline.after(Duration.ofMillis(ms), ticker);
    }

    /** Starts {@code call} on a new thread and returns once that thread is parked in a wait. */
    <T> CompletableFuture<T> waiting(Supplier<T> call) {
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
        ticker.awaitParked(t); // or it ended (f done)
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
