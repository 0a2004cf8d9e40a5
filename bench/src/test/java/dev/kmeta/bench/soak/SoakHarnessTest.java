package dev.kmeta.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The soak in CI: {@link SoakHarness#run} for {@value #DEFAULT_FAULT_PHASE_S} s of faults at
 * {@value #DEFAULT_PACE_PERCENT} % pace (pauses and holds halved: the seed's first faults, as many as 40 s at full pace
 * injected; about half a minute in all, with the cluster's start and the checks; {@code -Dkmeta.soak.seconds=90}
 * runs a longer one, {@code -Dkmeta.soak.pacePercent=100} at full pace), the same code as the 30-minute run,
 * asserting its report: every invariant held, and it did exercise something (faults of several kinds, waits answered
 * and timed out, instances closed).
 */
class SoakHarnessTest {
    /** The fault phase in {@code verify}; the system property {@value #SECONDS_PROPERTY} sets another. */
    private static final long DEFAULT_FAULT_PHASE_S = 20;
    private static final String SECONDS_PROPERTY = "kmeta.soak.seconds";
    /** The faults' pace in {@code verify}; the system property {@value #PACE_PROPERTY} sets another. */
    private static final int DEFAULT_PACE_PERCENT = 50;
    private static final String PACE_PROPERTY = "kmeta.soak.pacePercent";
    /** Fixed, so that a failure can be replayed: {@code SoakHarness --seconds 20 --pace-percent 50 --seed 20261129}. */
    private static final long SEED = 20261129L;

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void shortSoakKeepsEveryInvariant() {
        long faultPhaseS = Long.getLong(SECONDS_PROPERTY, DEFAULT_FAULT_PHASE_S);
        int pacePercent = Integer.getInteger(PACE_PROPERTY, DEFAULT_PACE_PERCENT);
        SoakReport report = SoakHarness.run(SoakSettings.ofSeconds(faultPhaseS, SEED).withPacePercent(pacePercent));
        System.out.println(report.format());
        assertTrue(report.passed(), "seed " + SEED + ":\n" + report.format());
        assertTrue(report.faultCount() >= 6, "faults injected: " + report.faults());
        assertTrue(report.faults().values().stream().filter(n -> n > 0).count() >= 4,
                "several kinds of fault: " + report.faults());
        assertTrue(report.answered() > 100, "waits answered: " + report.answered());
        assertTrue(report.waits() > report.answered(), "some waits timed out during faults");
        assertTrue(report.instancesClosed() >= 5, "instances opened and closed: " + report.instancesClosed());
        assertTrue(report.converged(), report.format());
        assertEquals(0, report.waitersLeft());
        assertTrue(report.leakedThreads().isEmpty(), report.leakedThreads().toString());
    }

    @Test
    void argumentsAreParsedAndBadOnesNamed() {
        SoakSettings s = SoakSettings.parse("--minutes", "10", "--seed", "42", "--senders", "6");
        assertEquals(600_000, s.durationMs());
        assertEquals(42, s.seed());
        assertEquals(6, s.senders());
        assertEquals(SoakSettings.DEFAULT_PACE_PERCENT, s.pacePercent());
        assertEquals(50, SoakSettings.parse("--pace-percent", "50").pacePercent());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SoakSettings.parse("--pace-percent", "0"))
                .getMessage().contains("--pace-percent"));
        assertEquals(SoakSettings.DEFAULT_MINUTES * 60_000, SoakSettings.parse().durationMs());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SoakSettings.parse("--minute", "3"))
                .getMessage().contains("--minute"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SoakSettings.parse("--seed", "x"))
                .getMessage().contains("--seed"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SoakSettings.parse("--minutes"))
                .getMessage().contains("--minutes"));
    }
}
