package dev.kmeta.metadata.internal;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * A real sender thread on the manager's clock, for stress tests: the production loop's shape without the wire -
 * {@code poll -> beginRefresh -> answer -> onResponse | onFailure}, parking until the next request is due or it is
 * woken (the manager's {@link Waker} unparks it). Answers come inline or, with a latency, from a responder thread.
 * It counts the requests outstanding between {@code beginRefresh} and {@code onResponse}/{@code onFailure}, and it ends
 * by itself once the manager is closed and nothing is outstanding, as the production sender does.
 */
final class SenderThread {
    private record Completion(RefreshRequest request, RefreshResponse response) {
    }

    private final MetadataManager manager;
    private final Function<RefreshRequest, RefreshResponse> answers;
    private final ExecutorService responder;
    private final long maxLatencyNs;
    private final Queue<Completion> completions = new ConcurrentLinkedQueue<>();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final AtomicInteger maxOutstanding = new AtomicInteger();
    private final AtomicReference<Throwable> error = new AtomicReference<>();
    private final Thread thread;

    /**
     * @param answers      the broker: a response, or null for a failed request (called on one thread only)
     * @param maxLatencyUs 0 answers inline on the sender thread; otherwise a responder thread answers after a
     *                     random simulated latency of up to this many microseconds
     */
    SenderThread(MetadataManager manager, Function<RefreshRequest, RefreshResponse> answers, long maxLatencyUs) {
        this.manager = manager;
        this.answers = answers;
        this.maxLatencyNs = TimeUnit.MICROSECONDS.toNanos(maxLatencyUs);
        this.responder = maxLatencyUs == 0 ? null : Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fake-broker");
            t.setDaemon(true);
            return t;
        });
        this.thread = new Thread(this::loop, "kmeta-metadata-sender | test");
        this.thread.setDaemon(true);
        manager.setWaker(() -> LockSupport.unpark(thread));
    }

    SenderThread start() {
        thread.start();
        return this;
    }

    private void loop() {
        try {
            for (;;) {
                for (Completion c; (c = completions.poll()) != null; ) {
                    complete(c, manager.ticker().milliTime());
                }
                long now = manager.ticker().milliTime();
                long waitMs = manager.poll(now);
                if (manager.isClosed() && outstanding.get() == 0) {
                    return;
                }
                RefreshRequest r = manager.beginRefresh(now);
                if (r != null) {
                    maxOutstanding.accumulateAndGet(outstanding.incrementAndGet(), Math::max);
                    dispatch(r);
                } else if (completions.isEmpty()) {
                    LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(Math.max(1, Math.min(waitMs, 100))));
                }
            }
        } catch (Throwable t) {
            error.set(t);
        }
    }

    private void dispatch(RefreshRequest r) {
        if (responder == null) {
            completions.add(new Completion(r, answers.apply(r)));
            return;
        }
        responder.execute(() -> {
            long latencyNs = ThreadLocalRandom.current().nextLong(maxLatencyNs + 1);
            if (latencyNs > 0) {
                LockSupport.parkNanos(latencyNs); // the simulated network and broker time
            }
            completions.add(new Completion(r, answers.apply(r)));
            LockSupport.unpark(thread);
        });
    }

    private void complete(Completion c, long nowMs) {
        outstanding.decrementAndGet();
        if (c.response == null) {
            manager.onFailure(c.request, "simulated failure", nowMs);
        } else {
            manager.onResponse(c.request, c.response, nowMs);
        }
    }

    /** The most requests ever outstanding at once (between beginRefresh and onResponse / onFailure). */
    int maxOutstanding() {
        return maxOutstanding.get();
    }

    /** What the loop threw, or null. */
    Throwable error() {
        return error.get();
    }

    /** Waits up to {@code ms} for the thread to end by itself (after close); true when it did. */
    boolean awaitExit(long ms) throws InterruptedException {
        thread.join(ms);
        if (responder != null) {
            responder.shutdown();
            if (!responder.awaitTermination(ms, TimeUnit.MILLISECONDS)) {
                return false;
            }
        }
        return !thread.isAlive();
    }
}
