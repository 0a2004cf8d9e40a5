package dev.kmeta.sender;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/** Shared bits of the integration tests: client properties, thread checks, waits on their own threads. */
public final class ItSupport {
    private static final AtomicInteger IDS = new AtomicInteger();

    private ItSupport() {
    }

    /**
     * Properties for a client that notices faults quickly: answers within 2 s or the request fails, reconnects
     * within 200 ms, no auto-creation.
     */
    static Map<String, Object> fastProps(String bootstrap) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", "it-" + IDS.incrementAndGet());
        p.put("request.timeout.ms", 2_000);
        p.put("reconnect.backoff.ms", 50);
        p.put("reconnect.backoff.max.ms", 200);
        p.put("socket.connection.setup.timeout.ms", 1_000);
        p.put("socket.connection.setup.timeout.max.ms", 2_000);
        p.put("allow.auto.create.topics", false);
        return p;
    }

    /** Live threads a kmeta client made ({@code kmeta-...}), leaving out the testkit's own. */
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
    static <T> CompletableFuture<T> onNewThread(String name, Callable<T> call) {
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

    /** A measured number, on the test's output (the build logs at WARN). */
    static void report(String format, Object... args) {
        System.out.println("[measured] " + String.format(format, args));
    }

    static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
