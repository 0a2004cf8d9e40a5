package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.MetadataTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A wait whose budget is spent returns without waking the sender. Waking it is not free: kmeta's own sender is woken
 * through the JDK selector's {@code wakeup()}, which takes a lock the sender thread (and any other waker) also takes;
 * a holder that is descheduled on a busy machine would keep the timed-out wait past its deadline - the soak's
 * late {@code BOOTSTRAP_UNREACHABLE} timeouts (bench/results/reliability-runs.md). The wait asked for its topic
 * when it began; asking again once the budget is gone helps nobody. On fake time, no thresholds: the waker counts.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LateWaitNoWakeAfterDeadlineTest {

    @Test
    void aTimedOutWaitOnAFreshManagerDoesNotWakeTheSenderAfterItsDeadline() throws Exception {
        try (Harness h = new Harness()) {
            CompletableFuture<Cluster> wait = h.waiting(() -> h.manager.awaitTopic("orders", h.deadline(300)));
            assertEquals(1, h.wakeups.get(), "the wait asks for its topic when it begins");
            RefreshRequest failed = h.stepFailing("connection refused"); // the sender takes it; the bootstrap fails
            assertNotNull(failed, "the sender had a request to make");

            h.advance(300); // the budget is spent; the waiter re-checks
            ExecutionException e = assertThrows(ExecutionException.class, () -> wait.get(10, TimeUnit.SECONDS));
            assertInstanceOf(MetadataTimeoutException.class, e.getCause());
            assertEquals(1, h.wakeups.get(), "the timed-out wait woke the sender again after its deadline");
        }
    }

    @Test
    void aWaitStillAsksAgainWhileItHasBudget() throws Exception {
        try (Harness h = new Harness()) {
            CompletableFuture<Cluster> wait = h.waiting(() -> h.manager.awaitTopic("orders", h.deadline(300)));
            h.stepFailing("connection refused");
            h.advance(100);
            h.manager.releaseEveryWaiter(); // woken with budget left: it re-asks (and wakes) as before
            assertEquals(2, wakeupsOnceParkedAgain(h, wait), "a wait with budget left re-asks for its topic");
            h.stepFailing("connection refused"); // the sender takes the new ask: a later one would wake it again
            h.advance(200);
            assertThrows(ExecutionException.class, () -> wait.get(10, TimeUnit.SECONDS));
            assertEquals(2, h.wakeups.get(), "no wake once the budget is spent");
        }
    }

    private static int wakeupsOnceParkedAgain(Harness h, CompletableFuture<Cluster> wait) {
        h.ticker.awaitParked(1); // it asks before it parks again
        return h.wakeups.get();
    }
}
