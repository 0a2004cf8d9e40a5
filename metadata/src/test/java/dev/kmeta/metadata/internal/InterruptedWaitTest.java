package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.MetadataInterruptedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.time.Duration;

/**
 * An interrupt ends a wait at once with {@link MetadataInterruptedException}, the interrupt status kept and the
 * subscription intact. On fake time the budget never runs out, so a wait that ignored the interrupt (a parked thread
 * returns from parkNanos at once while interrupted) would spin until the test's own timeout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InterruptedWaitTest {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** What a waiting thread ended with: the error, its interrupt status then, and its CPU time in the wait. */
    private record Ended(Throwable error, boolean stillInterrupted, long cpuNs) {
    }

    @Test
    void anInterruptedTopicWaitEndsAtOnceKeepingStatusAndSubscription() throws Exception {
        try (Harness h = new Harness()) {
            h.step();
            Ended ended = interruptWhileWaiting(h, () -> h.manager.awaitTopic("orders", h.deadline(60_000)));
            MetadataInterruptedException e = assertInstanceOf(MetadataInterruptedException.class, ended.error);
            assertTrue(e.getMessage().contains("orders"), e.getMessage());
            assertTrue(ended.stillInterrupted, "the interrupt status is kept");
            assertTrue(h.manager.subscribedTopics().contains("orders"), "the topic stays subscribed");
            assertEquals(0, h.manager.counters().waitersNow());
            h.broker.topic("orders", 3, 1);
            h.step();
            assertEquals(3, h.manager.fetch().partitionCount("orders"), "a later send finds it");
        }
    }

    @Test
    void anInterruptedPartitionWaitEndsAtOnce() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 3, 1);
            h.learn("orders");
            Ended ended = interruptWhileWaiting(h, () -> h.manager.awaitTopic("orders", 7, h.deadline(60_000)));
            assertInstanceOf(MetadataInterruptedException.class, ended.error);
            assertTrue(ended.stillInterrupted);
        }
    }

    @Test
    void anInterruptedVersionWaitEndsAtOnce() throws Exception {
        try (Harness h = new Harness()) {
            h.step();
            int version = h.manager.requestUpdate();
            Ended ended = interruptWhileWaiting(h, () -> {
                h.manager.awaitUpdate(version, h.manager.newDeadline(Duration.ofSeconds(60)));
                return null;
            });
            assertInstanceOf(MetadataInterruptedException.class, ended.error);
            assertTrue(ended.stillInterrupted);
        }
    }

    @Test
    void aThreadInterruptedBeforeItWaitsFailsWithoutParking() throws Exception {
        try (Harness h = new Harness()) {
            h.step();
            CompletableFuture<Ended> f = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                Thread.currentThread().interrupt();
                f.complete(run(() -> h.manager.awaitTopic("orders", 0, h.deadline(60_000))));
            }, "app-interrupted");
            t.start();
            Ended ended = f.get(10, TimeUnit.SECONDS);
            assertInstanceOf(MetadataInterruptedException.class, ended.error);
            assertTrue(ended.stillInterrupted);
        }
    }

    @Test
    void aCacheHitIsServedEvenToAnInterruptedThread() throws Exception {
        try (Harness h = new Harness()) {
            h.broker.topic("orders", 3, 1);
            h.learn("orders");
            Thread.currentThread().interrupt();
            try {
                Cluster c = h.manager.awaitTopic("orders", 1, h.deadline(60_000));
                assertEquals(3, c.partitionCount("orders"), "no wait, nothing to interrupt");
                assertTrue(Thread.currentThread().isInterrupted());
            } finally {
                Thread.interrupted();
            }
        }
    }

    /** Starts {@code call} on a thread, interrupts it once it is parked, and returns how it ended. */
    private static Ended interruptWhileWaiting(Harness h, Supplier<?> call) throws Exception {
        CompletableFuture<Ended> f = new CompletableFuture<>();
        Thread t = new Thread(() -> f.complete(run(call)), "app-waiting");
        t.setDaemon(true);
        t.start();
        assertTrue(h.ticker.awaitParked(t), "the thread parks in its wait");
        assertEquals(1, h.manager.counters().waitersNow());
        t.interrupt();
        Ended ended = f.get(10, TimeUnit.SECONDS);
        assertTrue(ended.cpuNs < TimeUnit.MILLISECONDS.toNanos(500), "no spin: " + ended.cpuNs / 1_000_000 + " ms CPU");
        return ended;
    }

    private static Ended run(Supplier<?> call) {
        long cpuBefore = THREADS.getCurrentThreadCpuTime();
        Throwable error = null;
        try {
            call.get();
        } catch (RuntimeException e) {
            error = e;
        }
        return new Ended(error, Thread.currentThread().isInterrupted(), THREADS.getCurrentThreadCpuTime() - cpuBefore);
    }
}
