package dev.kmeta.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link KafkaCluster}s of this JVM that are starting or running, and the JVM shutdown hook that closes those
 * left open (e.g. Ctrl-C in a demo). Thread-safe (a concurrent set).
 */
final class OpenClusters {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaCluster.class);
    private static final Set<KafkaCluster> OPEN = ConcurrentHashMap.newKeySet();
    private static final long SHUTDOWN_TIMEOUT_S = 20;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(OpenClusters::closeLeftovers, "kmeta-testkit-shutdown"));
    }

    private OpenClusters() {
    }

    static void add(KafkaCluster cluster) {
        OPEN.add(cluster);
    }

    static void remove(KafkaCluster cluster) {
        OPEN.remove(cluster);
    }

    /**
     * Closes clusters left open, each from a daemon thread, and gives up after a bounded time so that a cluster
     * stuck in start() cannot hang the JVM's exit.
     */
    private static void closeLeftovers() {
        List<Thread> closers = new ArrayList<>();
        for (KafkaCluster cluster : new ArrayList<>(OPEN)) {
            LOG.warn("closing {} left open at JVM exit", cluster);
            Thread closer = new Thread(cluster::close, "kmeta-testkit-close-" + cluster.clusterId());
            closer.setDaemon(true);
            closer.start();
            closers.add(closer);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SHUTDOWN_TIMEOUT_S);
        for (Thread closer : closers) {
            try {
                closer.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
