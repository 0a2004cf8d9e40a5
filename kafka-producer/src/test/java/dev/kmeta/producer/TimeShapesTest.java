package dev.kmeta.producer;

import dev.kmeta.testkit.ApiSurface;
import dev.kmeta.testkit.TimeShapes;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The rule for time in this module's exported API ({@link TimeShapes}): blocking waits take a
 * {@code Deadline}, made by the instance or on a ticker the caller holds; configuration durations are
 * {@code Duration} in a builder; reported times are {@code long} with the unit in the name.
 */
class TimeShapesTest {
    @Test
    void producer() {
        assertEquals(List.of(), TimeShapes.violations(ApiSurface.of(KmetaProducer.class), Map.of()));
    }
}
