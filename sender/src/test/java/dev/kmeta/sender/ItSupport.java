package dev.kmeta.sender;

import dev.kmeta.testkit.TestClients;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * The sender tests' names for testkit's {@link TestClients} (shared with every module's tests), kept so that the
 * tests calling them need no change.
 */
public final class ItSupport {
    private ItSupport() {
    }

    /** {@link TestClients#fastProps}. */
    static Map<String, Object> fastProps(String bootstrap) {
        return TestClients.fastProps(bootstrap);
    }

    /** {@link TestClients#kmetaThreads}. */
    public static List<String> kmetaThreads() {
        return TestClients.kmetaThreads();
    }

    /** {@link TestClients#senderThreadAlive}. */
    public static boolean senderThreadAlive(String clientId) {
        return TestClients.senderThreadAlive(clientId);
    }

    /** {@link TestClients#onNewThread}. */
    static <T> CompletableFuture<T> onNewThread(String name, Callable<T> call) {
        return TestClients.onNewThread(name, call);
    }

    /** {@link TestClients#report}. */
    static void report(String format, Object... args) {
        TestClients.report(format, args);
    }

    /** {@link TestClients#millisSince}. */
    static long millisSince(long startNanos) {
        return TestClients.millisSince(startNanos);
    }
}
