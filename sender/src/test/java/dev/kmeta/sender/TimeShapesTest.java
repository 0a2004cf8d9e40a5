package dev.kmeta.sender;

import dev.kmeta.metadata.Deadline;
import dev.kmeta.testkit.ApiSurface;
import dev.kmeta.testkit.TimeShapes;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The rule for time in the exported API of kmeta.metadata and kmeta.sender ({@link TimeShapes}): blocking waits take
 * a {@link Deadline}, made by the instance or on a ticker the caller holds; configuration durations are
 * {@code Duration} in a builder; reported times are {@code long} with the unit in the name.
 */
class TimeShapesTest {
    @Test
    void metadata() {
        assertEquals(List.of(), TimeShapes.violations(ApiSurface.of(Deadline.class), Map.of(
                "dev.kmeta.metadata.Ticker.park(Object,long)", "the time seam itself: LockSupport.parkNanos's shape",
                "dev.kmeta.metadata.ConnectionEvidence$Record.activeSince(long)",
                "sinceMs: an instant on the ticker's milliTime, not a budget",
                "dev.kmeta.metadata.PrefetchResult.of(Cluster,Collection,Map,long)",
                "elapsedMs: a reported time, unit in the name")));
    }

    @Test
    void sender() {
        assertEquals(List.of(), TimeShapes.violations(ApiSurface.of(KafkaMetadata.class), Map.of()));
    }
}
