package dev.kmeta.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The arithmetic and the run order of the real-broker harnesses (P2k, P10); their brokers are not started here. */
class RealBrokerTest {
    @Test
    void quantilesAreNearestRank() {
        long[] v = new long[1000];
        for (int i = 0; i < v.length; i++) {
            v[i] = i + 1; // 1..1000
        }
        assertEquals(500, RealBroker.quantile(v, 1000, 0.50));
        assertEquals(990, RealBroker.quantile(v, 1000, 0.99));
        assertEquals(999, RealBroker.quantile(v, 1000, 0.999));
        assertEquals(1000, RealBroker.quantile(v, 1000, 1.0));
        assertEquals(10, RealBroker.quantile(v, 10, 0.999), "only the first n values count");
        assertEquals(1, RealBroker.quantile(v, 1, 0.5));
        assertEquals(-1, RealBroker.quantile(v, 0, 0.5));
    }

    @Test
    void sortedCopiesTheFirstNValues() {
        long[] v = {5, 1, 4, 99};
        assertEquals(List.of(1L, 4L, 5L), java.util.Arrays.stream(RealBroker.sorted(v, 3)).boxed().toList());
        assertEquals(5, v[0], "the input is left as it was");
    }

    @Test
    void bothRoutesAlternateByRound() {
        assertEquals(List.of(RealBroker.STOCK, RealBroker.KMETA), RealBroker.impls("both", 1));
        assertEquals(List.of(RealBroker.KMETA, RealBroker.STOCK), RealBroker.impls("both", 2));
        assertEquals(List.of(RealBroker.STOCK, RealBroker.KMETA), RealBroker.impls("both", 3));
        assertEquals(List.of(RealBroker.KMETA), RealBroker.impls("kmeta", 2));
        assertThrows(IllegalArgumentException.class, () -> RealBroker.impls("kafka-clients", 1));
    }
}
