package dev.kmeta.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one task on a group of {@link KafkaNode}s in parallel, each on a daemon thread of its own, within one
 * deadline; the first failure (in the group's order) is rethrown naming its node. Stateless; thread-safe.
 */
final class NodeTasks {
    private static final AtomicInteger THREAD_IDS = new AtomicInteger();

    /** A task on one node that may throw. */
    interface NodeTask {
        Void run(KafkaNode node) throws Exception;
    }

    private NodeTasks() {
    }

    /** Runs a task on every node in parallel (daemon threads); the first failure is rethrown. */
    static void inParallel(String what, List<KafkaNode> group, NodeTask task, Duration timeout) {
        if (group.isEmpty()) {
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(group.size(), runnable -> {
            Thread thread = new Thread(runnable, "kmeta-testkit-" + what + "-" + THREAD_IDS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (KafkaNode node : group) {
                futures.add(pool.submit(() -> task.run(node)));
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            for (int i = 0; i < futures.size(); i++) {
                awaitNode(futures.get(i), group.get(i), what, deadline);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void awaitNode(Future<Void> future, KafkaNode node, String what, long deadlineNanos) {
        try {
            future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw new IllegalStateException(what + " of node " + node.id + " failed: " + cause, cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " of node " + node.id + " timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + what + " of node " + node.id, e);
        }
    }
}
