package dev.kmeta.testkit;

import org.apache.kafka.common.serialization.StringSerializer;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * What the integration tests of every module share about their clients: properties (each a new mutable map, for a
 * test to adjust), kmeta's threads, the proxies' counters, a closed port, waits on threads of their own, measured
 * numbers on the test's output. Before, each module (and many test classes) had a copy of these.
 *
 * <p>Stateless but for the client id sequence; thread-safe.
 */
public final class TestClients {
    /** The Metadata API key, as the proxies count it. */
    public static final short METADATA = 3;
    private static final AtomicInteger IDS = new AtomicInteger();

    private TestClients() {
    }

    /**
     * Client properties: {@code bootstrap.servers}, a client id of its own ({@code <prefix>-<n>}, unique in the JVM)
     * and no auto-creation (the test brokers do not create topics either).
     */
    public static Map<String, Object> props(String bootstrap, String clientIdPrefix) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", clientIdPrefix + "-" + IDS.incrementAndGet());
        p.put("allow.auto.create.topics", false);
        return p;
    }

    /**
     * {@link #props} of a client that notices faults quickly: answers within 2 s or the request fails, reconnects
     * within 200 ms, connection setup within 1-2 s; client id {@code it-<n>}.
     */
    public static Map<String, Object> fastProps(String bootstrap) {
        Map<String, Object> p = props(bootstrap, "it");
        p.put("request.timeout.ms", 2_000);
        p.put("reconnect.backoff.ms", 50);
        p.put("reconnect.backoff.max.ms", 200);
        p.put("socket.connection.setup.timeout.ms", 1_000);
        p.put("socket.connection.setup.timeout.max.ms", 2_000);
        return p;
    }

    /**
     * A String-keyed producer's properties (String serializers), reconnecting within 200 ms; client id
     * {@code it-producer-<n>}. No auto-creation key: a producer has none (the test brokers do not create topics).
     */
    public static Map<String, Object> producerProps(String bootstrap) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", "it-producer-" + IDS.incrementAndGet());
        p.put("key.serializer", StringSerializer.class);
        p.put("value.serializer", StringSerializer.class);
        p.put("reconnect.backoff.ms", 50);
        p.put("reconnect.backoff.max.ms", 200);
        return p;
    }

    /** Live threads a kmeta client made ({@code kmeta-...}), leaving out the testkit's own; sorted. */
    public static List<String> kmetaThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("kmeta-") && !n.startsWith("kmeta-testkit"))
                .sorted()
                .collect(Collectors.toList());
    }

    /** True while the sender thread of {@code clientId} runs. */
    public static boolean senderThreadAlive(String clientId) {
        String name = "kmeta-metadata-sender | " + clientId;
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.isAlive() && t.getName().equals(name));
    }

    /** Runs a blocking call on a new daemon thread (not the common pool, which has one thread on 2 cores). */
    public static <T> CompletableFuture<T> onNewThread(String name, Callable<T> call) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(call.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "it-" + name);
        t.setDaemon(true);
        t.start();
        return f;
    }

    /**
     * A measured number: one {@code [measured] ...} entry appended to {@code target/measured.txt} of the module whose
     * tests run (surefire's working directory), so that a green build's log stays short (issue 40: fewer than 200
     * lines beside Maven's own) while every number a test measured is kept; {@code -Dkmeta.test.measured=stdout}
     * prints them on the test's output instead. Any thread.
     */
    public static void report(String format, Object... args) {
        String line = "[measured] " + String.format(format, args);
        if ("stdout".equals(System.getProperty("kmeta.test.measured"))) {
            System.out.println(line);
            return;
        }
        synchronized (TestClients.class) {
            try {
                java.nio.file.Path file = java.nio.file.Path.of("target", "measured.txt");
                java.nio.file.Files.createDirectories(file.getParent());
                java.nio.file.Files.writeString(file, line + System.lineSeparator(),
                        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            } catch (java.io.IOException e) {
                System.out.println(line); // not lost: where the file cannot be written, the output has it
            }
        }
    }

    /** Milliseconds since {@code startNanos} ({@link System#nanoTime()}). */
    public static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /** A loopback port nothing listens on (it was free a moment ago). */
    public static int closedPort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Metadata requests the cluster's broker proxies have seen since their last reset. */
    public static long metadataRequests(KafkaCluster cluster) {
        long n = 0;
        for (int id : cluster.brokerIds()) {
            n += cluster.proxy(id).requestCount(METADATA);
        }
        return n;
    }

    /** Resets the counters of every broker proxy of the cluster. */
    public static void resetProxies(KafkaCluster cluster) {
        for (int id : cluster.brokerIds()) {
            cluster.proxy(id).resetCounters();
        }
    }

    /** Connections open through the cluster's broker proxies now. */
    public static int openConnections(KafkaCluster cluster) {
        int n = 0;
        for (int id : cluster.brokerIds()) {
            n += cluster.proxy(id).openConnections();
        }
        return n;
    }
}
