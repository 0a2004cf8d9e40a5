package dev.kmeta.testkit;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What went through one {@link FaultProxy}: accepted connections, bytes each way, and the Kafka request frames
 * clients sent by api key with the highest version seen. Thread-safe: every connection's threads update it at once.
 */
final class ProxyTraffic {
    private final Map<Short, AtomicLong> requestCounts = new ConcurrentHashMap<>();
    /** Per api key, per client id ("" for a frame without one), the frames clients sent. */
    private final Map<Short, Map<String, AtomicLong>> byClient = new ConcurrentHashMap<>();
    /** Per api key, the highest request version clients sent (the version they negotiated). */
    private final Map<Short, Short> maxVersions = new ConcurrentHashMap<>();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong bytesFromClients = new AtomicLong();
    private final AtomicLong bytesToClients = new AtomicLong();

    void accepted() {
        accepted.incrementAndGet();
    }

    void fromClients(long bytes) {
        bytesFromClients.addAndGet(bytes);
    }

    void toClients(long bytes) {
        bytesToClients.addAndGet(bytes);
    }

    /** One request frame a client sent (a {@link FrameCounter.Listener}). */
    void frame(short apiKey, short apiVersion, String clientId) {
        requestCounts.computeIfAbsent(apiKey, key -> new AtomicLong()).incrementAndGet();
        byClient.computeIfAbsent(apiKey, key -> new ConcurrentHashMap<>())
                .computeIfAbsent(clientId == null ? "" : clientId, id -> new AtomicLong()).incrementAndGet();
        maxVersions.merge(apiKey, apiVersion, (a, b) -> a >= b ? a : b);
    }

    long acceptedConnections() {
        return accepted.get();
    }

    long bytesFromClients() {
        return bytesFromClients.get();
    }

    long bytesToClients() {
        return bytesToClients.get();
    }

    long requestCount(short apiKey) {
        AtomicLong count = requestCounts.get(apiKey);
        return count == null ? 0 : count.get();
    }

    /** A copy, sorted by api key. */
    Map<Short, Long> requestCounts() {
        Map<Short, Long> copy = new TreeMap<>();
        requestCounts.forEach((key, count) -> copy.put(key, count.get()));
        return Collections.unmodifiableMap(copy);
    }

    /** The frames of {@code apiKey} per client id ("" for none): a copy, sorted by client id. */
    Map<String, Long> requestCountsByClient(short apiKey) {
        Map<String, Long> copy = new TreeMap<>();
        byClient.getOrDefault(apiKey, Map.of()).forEach((id, count) -> copy.put(id, count.get()));
        return Collections.unmodifiableMap(copy);
    }

    short maxRequestVersion(short apiKey) {
        return maxVersions.getOrDefault(apiKey, (short) -1);
    }

    void reset() {
        accepted.set(0);
        bytesFromClients.set(0);
        bytesToClients.set(0);
        requestCounts.clear();
        byClient.clear();
        maxVersions.clear();
    }
}
