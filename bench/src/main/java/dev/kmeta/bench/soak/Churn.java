package dev.kmeta.bench.soak;

import org.apache.kafka.common.KafkaException;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.MetadataClosedException;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.sender.KafkaMetadataTimeoutException;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.time.Duration;

/**
 * Opens and closes {@link KafkaMetadata} instances for the whole soak, whatever the faults: each asks for a few topics
 * (waits recorded with the others), keeps one thread parked on a topic that never exists with a long budget, and is
 * closed. Close must return within {@value #CLOSE_LIMIT_MS} ms, release the parked thread (with
 * {@link MetadataClosedException}) and leave no waiter and no sender thread. Runs on one thread; counters readable
 * from any.
 */
final class Churn implements Runnable {
    static final long CLOSE_LIMIT_MS = 5_000;
    private static final String NEVER = "soak-never-exists";
    private static final long PARKED_BUDGET_MS = 60_000;

    private final Function<String, Map<String, Object>> props;
    private final Topics topics;
    private final WaitStats waits;
    private final Random random;
    private volatile boolean stop;
    final AtomicLong opened = new AtomicLong();
    final AtomicLong closed = new AtomicLong();
    final AtomicLong maxCloseMs = new AtomicLong();
    final AtomicLong maxReleaseMs = new AtomicLong();
    final AtomicLong problems = new AtomicLong();
    private final StringBuffer firstProblems = new StringBuffer();

    Churn(Function<String, Map<String, Object>> props, Topics topics, WaitStats waits, long seed) {
        this.props = props;
        this.topics = topics;
        this.waits = waits;
        this.random = new Random(seed);
    }

    void stop() {
        stop = true;
    }

    @Override
    public void run() {
        while (!stop) {
            try {
                cycle("soak-churn-" + opened.get());
                TimeUnit.MILLISECONDS.sleep(500 + random.nextInt(2_500));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                problem("instance failed: " + e);
            }
        }
    }

    private void cycle(String clientId) throws InterruptedException {
        KafkaMetadata m = KafkaMetadata.create(props.apply(clientId));
        opened.incrementAndGet();
        CompletableFuture<Long> parked = new CompletableFuture<>();
        Thread waiter = new Thread(() -> parkUntilClosed(m, parked), "soak-parked-" + clientId);
        waiter.setDaemon(true);
        waiter.start();
        int asks = 1 + random.nextInt(3);
        for (int i = 0; i < asks && !stop; i++) {
            SoakHarness.awaitOnce(m, topics, random, waits);
        }
        long parkedSince = System.nanoTime();
        while (m.stats().waitersNow() < 1 && System.nanoTime() - parkedSince < TimeUnit.SECONDS.toNanos(2)) {
            TimeUnit.MILLISECONDS.sleep(5);
        }
        long begin = System.nanoTime();
        m.close();
        long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
        closed.incrementAndGet();
        maxCloseMs.accumulateAndGet(closeMs, Math::max);
        if (closeMs > CLOSE_LIMIT_MS) {
            problem(clientId + ": close took " + closeMs + " ms");
        }
        try {
            long releasedNs = parked.get(5, TimeUnit.SECONDS);
            maxReleaseMs.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(releasedNs - begin), Math::max);
        } catch (ExecutionException | TimeoutException e) {
            problem(clientId + ": the parked waiter was not released by close: " + e);
        }
        if (m.stats().waitersNow() != 0) {
            problem(clientId + ": " + m.stats().waitersNow() + " waiter(s) left after close");
        }
        List<String> left = SoakHarness.awaitNoThreads("kmeta-metadata-sender | " + clientId, 5_000);
        if (!left.isEmpty()) {
            problem(clientId + ": thread(s) left after close: " + left);
        }
    }

    private static void parkUntilClosed(KafkaMetadata m, CompletableFuture<Long> released) {
        try {
            m.awaitTopic(NEVER, m.newDeadline(Duration.ofMillis(PARKED_BUDGET_MS)));
            released.completeExceptionally(new IllegalStateException(NEVER + " was found"));
        } catch (KafkaMetadataTimeoutException e) {
            released.completeExceptionally(new IllegalStateException("timed out instead of being released", e));
        } catch (KafkaException e) {
            if (e.getCause() instanceof MetadataClosedException) {
                released.complete(System.nanoTime());
            } else {
                released.completeExceptionally(e);
            }
        } catch (RuntimeException e) {
            released.completeExceptionally(e);
        }
    }

    private void problem(String what) {
        problems.incrementAndGet();
        if (firstProblems.length() < 2_000) {
            firstProblems.append(what).append("; ");
        }
    }

    String firstProblems() {
        return firstProblems.toString();
    }
}
