package dev.kmeta.metadata;

import dev.kmeta.cluster.Cluster;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a warm-up got ({@code KafkaMetadata.prefetch}): the snapshot it ended with, the topics it found (with
 * partitions), and for each topic it did not get the {@link Diagnosis} a send that timed out on that topic would
 * carry (TOPIC_NOT_FOUND, TOPIC_NOT_AUTHORIZED, BOOTSTRAP_UNREACHABLE...).
 *
 * <p>Immutable and thread-safe.
 */
public final class PrefetchResult {
    private final Cluster snapshot;
    private final List<String> fetched;
    private final Map<String, Diagnosis> missing;
    private final long elapsedMs;

    private PrefetchResult(Cluster snapshot, List<String> fetched, Map<String, Diagnosis> missing, long elapsedMs) {
        this.snapshot = snapshot;
        this.fetched = fetched;
        this.missing = missing;
        this.elapsedMs = elapsedMs;
    }

    /**
     * A result (kmeta makes them; public for tests of code that takes one).
     *
     * @param fetched   the topics found, in the order asked
     * @param missing   per topic not got, why; in the order asked
     * @param elapsedMs how long the prefetch took
     */
    public static PrefetchResult of(Cluster snapshot, Collection<String> fetched, Map<String, Diagnosis> missing,
                                    long elapsedMs) {
        Objects.requireNonNull(snapshot, "snapshot");
        return new PrefetchResult(snapshot, List.copyOf(fetched),
                Collections.unmodifiableMap(new LinkedHashMap<>(missing)), elapsedMs);
    }

    /** The snapshot the prefetch ended with: it answers every topic of {@link #fetched()}. */
    public Cluster snapshot() {
        return snapshot;
    }

    /** The topics found, with partitions, in the order asked. */
    public List<String> fetched() {
        return fetched;
    }

    /** Per topic not got (not found in the budget, refused...), its diagnosis; in the order asked. Empty if none. */
    public Map<String, Diagnosis> missing() {
        return missing;
    }

    /** True when every topic asked was found. */
    public boolean complete() {
        return missing.isEmpty();
    }

    /** How long the prefetch took (ms, on the instance's clock); 0 when every topic was known already. */
    public long elapsedMs() {
        return elapsedMs;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("PrefetchResult(").append(fetched.size()).append(" of ")
                .append(fetched.size() + missing.size()).append(" topics in ").append(elapsedMs).append(" ms");
        missing.forEach((topic, d) -> sb.append("; ").append(topic).append(": ").append(d.cause()));
        return sb.append(')').toString();
    }
}
