package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.MetadataConfig;
import java.util.Map;

/**
 * Benchmark access to the heart of {@link MetadataManager#onResponse}: {@link ResponseMerger#merge} then
 * {@link Cluster#apply}, exactly as {@code onResponse} does them, without its bookkeeping (counters, logging of world
 * changes, waking waiters, the refresh state machine), which needs a request in flight per operation. For bench/
 * (ApplyFullResponse, ApplySmallChange, RetainedHeap), which runs on the class path; it lives here, in the merger's
 * package, because {@link ResponseMerger} is package-private (it was a class of bench's own in this package: a split
 * package, which module descriptors refuse).
 *
 * <p>Not thread-safe: one per benchmark thread (the merger is the sender thread's).
 */
public final class MergePath {
    private final ResponseMerger merger =
            new ResponseMerger(MetadataConfig.from(Map.of()).epochRewindAcceptCount());

    /** Merges {@code response} into {@code before} with every topic counted as subscribed; the next snapshot. */
    public Cluster apply(Cluster before, RefreshResponse response) {
        ResponseMerger.Result result = merger.merge(before, response, name -> true);
        if (result == null) {
            throw new IllegalStateException("the answer listed no brokers");
        }
        return before.apply(result.delta);
    }
}
