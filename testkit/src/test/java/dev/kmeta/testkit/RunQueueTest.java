package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RunQueueTest {
    @Test
    void anotherThreadsFileIsReadFromThisThread() throws Exception {
        assumeTrue(RunQueue.waitedNs() >= 0, "needs Linux's /proc/thread-self/schedstat");
        CompletableFuture<Path> file = new CompletableFuture<>();
        CountDownLatch end = new CountDownLatch(1);
        Thread other = new Thread(() -> {
            file.complete(RunQueue.fileOfCallingThread());
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        other.start();
        Path theirs = file.get(30, TimeUnit.SECONDS);

        assertNotNull(theirs);
        assertNotEquals(RunQueue.fileOfCallingThread(), theirs, "the file is the other thread's, not the reader's");
        assertTrue(RunQueue.waitedNs(theirs) >= 0);
        end.countDown();
        other.join(TimeUnit.SECONDS.toMillis(30));
    }
}
