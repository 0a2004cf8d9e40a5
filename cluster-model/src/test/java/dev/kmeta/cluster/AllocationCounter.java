package dev.kmeta.cluster;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;

/** The current thread's allocated-bytes counter for allocation tests; skips the test where the JVM has none. */
final class AllocationCounter {
    private AllocationCounter() {
    }

    /** The JVM's per-thread counter; the calling test is skipped (assumption) when it is missing or off. */
    static com.sun.management.ThreadMXBean require() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no per-thread allocation counter");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        return threads;
    }
}
