package dev.kmeta.bench;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The P2k harness's scheduler census finds a thread by its Java name and counts what it did between two reads. */
class ThreadCensusTest {
    @Test
    void countsTheNamedThreadsSleeps() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only");
        CountDownLatch named = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch parked = new CountDownLatch(1);
        CountDownLatch read = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                named.countDown();
                go.await();
                for (int i = 0; i < 50; i++) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200)); // the work counted: 50 sleeps
                }
                parked.countDown();
                read.await(); // alive until the second read
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "census-test-sleeper");
        t.start();
        try {
            named.await();
            ThreadCensus census = ThreadCensus.of(ThreadCensus.nativeIds(),
                    List.of("census-test-sleeper", "no-such-thread"));
            assertEquals(1, census.size(), "the named thread is found, the missing one left out");
            ThreadCensus.Counts before = census.read();
            go.countDown();
            parked.await();
            ThreadCensus.Counts used = census.read().minus(before);
            assertTrue(used.slept() >= 25, "each park is a voluntary switch (half, for spurious returns): " + used);
        } finally {
            read.countDown();
            t.join(10_000);
        }
    }
}
