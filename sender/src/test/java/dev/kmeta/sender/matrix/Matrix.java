package dev.kmeta.sender.matrix;

import dev.kmeta.sender.HostResolverHook;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Small shared pieces of the fault matrix: what the load waits for, a resolver that knows only loopback, the proxies
 * and ports of a cluster, background work on daemon threads.
 *
 * <p>Stateless and thread-safe.
 */
final class Matrix {
    static final byte[] LOOPBACK = {127, 0, 0, 1};

    private Matrix() {
    }

    /**
     * What a scenario's load waits for on a topic of {@code partitions} partitions: the topic, each partition, and
     * the partition after the last (which does not exist: its waits time out, and each asks for a refresh).
     */
    static List<Load.Target> targets(String topic, int partitions) {
        List<Load.Target> targets = new ArrayList<>();
        targets.add(Load.Target.topic(topic));
        for (int p = 0; p <= partitions; p++) {
            targets.add(Load.Target.partition(topic, p));
        }
        return targets;
    }

    /** Resolves the loopback literal only: the matrix never asks the system resolver. */
    static HostResolverHook loopbackOnly() {
        return host -> {
            if ("127.0.0.1".equals(host) || "localhost".equals(host)) {
                return new InetAddress[] {InetAddress.getByAddress(host, LOOPBACK)};
            }
            throw new UnknownHostException(host + " (the matrix resolves loopback only)");
        };
    }

    /** The proxies in front of every broker of a cluster built {@code withProxies()}. */
    static List<FaultProxy> proxies(KafkaCluster cluster) {
        List<FaultProxy> proxies = new ArrayList<>();
        for (int id : cluster.brokerIds()) {
            proxies.add(cluster.proxy(id));
        }
        return proxies;
    }

    /** Every port a client of this cluster may connect to: the proxies (if any) and the CLIENT listeners. */
    static List<Integer> clientPorts(KafkaCluster cluster, boolean proxied) {
        List<Integer> ports = new ArrayList<>();
        for (int id : cluster.brokerIds()) {
            ports.add(cluster.brokerAddress(id).getPort());
            if (proxied) {
                ports.add(cluster.proxy(id).port());
            }
        }
        return ports;
    }

    /** Runs a blocking step (a broker restart...) on a new daemon thread. */
    static CompletableFuture<Void> inBackground(String name, Runnable step) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                step.run();
                f.complete(null);
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "matrix-" + name);
        t.setDaemon(true);
        t.start();
        return f;
    }

    /** Puts every proxy of the cluster back to forwarding to its own broker, at once. */
    static void heal(KafkaCluster cluster) {
        for (int id : cluster.brokerIds()) {
            if (!cluster.runningBrokerIds().contains(id)) {
                cluster.startBroker(id);
            }
            cluster.proxy(id).retarget("127.0.0.1", cluster.brokerAddress(id).getPort()).pass().latencyMs(0);
        }
    }
}
