package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.MetadataClosedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code close()} releases every waiter before it wakes the sender. Waking kmeta's sender goes through the JDK
 * selector's {@code wakeup()}, whose lock a descheduled holder can keep for a long time on a busy machine (seen in the
 * fault matrix at load ~20); waiters parked for their topics must not wait behind it. Here the waker blocks on a latch
 * (the held lock) and the waiter must still be released, with {@link MetadataClosedException}, while it blocks.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CloseReleasesWaitersFirstTest {

    @Test
    void aWaiterIsReleasedEvenWhileWakingTheSenderBlocks() throws Exception {
        try (Harness h = new Harness()) {
            AtomicBoolean lockHeld = new AtomicBoolean();
            CountDownLatch lockFreed = new CountDownLatch(1);
            h.manager.setWaker(() -> {
                h.wakeups.incrementAndGet();
                if (lockHeld.get()) {
                    awaitQuietly(lockFreed);
                }
            });
            CompletableFuture<Cluster> wait = h.waiting(() -> h.manager.awaitTopic("orders", h.deadline(60_000)));
            h.step(); // the sender takes the ask and answers: the topic does not exist; the waiter stays parked
            h.ticker.awaitParked(1); // parked again (its wake by the answer took it off the fake's parked threads)
            assertEquals(1, h.manager.counters().waitersNow());
            h.manager.poll(h.now()); // the sender's next round: a wake is wanted again

            lockHeld.set(true);
            Thread closer = new Thread(h.manager::close, "closer");
            closer.start();
            try {
                ExecutionException e = assertThrows(ExecutionException.class, () -> wait.get(10, TimeUnit.SECONDS),
                        "the waiter was not released while close() was stuck waking the sender");
                assertInstanceOf(MetadataClosedException.class, e.getCause());
                assertTrue(closer.isAlive() || h.wakeups.get() >= 2, "close() did try to wake the sender");
            } finally {
                lockFreed.countDown();
                closer.join(10_000);
            }
            assertFalse(closer.isAlive());
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
