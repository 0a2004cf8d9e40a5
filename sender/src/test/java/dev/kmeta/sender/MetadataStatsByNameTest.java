package dev.kmeta.sender;

import dev.kmeta.metadata.Diagnosis;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link MetadataStats} is built by name (issue 25): each accessor reads the {@link MetadataStats.Stat} of its own
 * name, a snapshot missing one is refused, and {@link MetadataStats#minus} subtracts counts and keeps "now" values.
 * A positional build (the old {@code long[22]}) could swap two values unseen.
 */
class MetadataStatsByNameTest {
    @Test
    void eachAccessorReadsTheStatOfItsName() throws Exception {
        MetadataStats stats = distinct(0);
        for (MetadataStats.Stat stat : MetadataStats.Stat.values()) {
            Method accessor = MetadataStats.class.getMethod(accessorName(stat));
            assertEquals(value(stat, 0), accessor.invoke(stats), stat.name());
        }
    }

    @Test
    void minusSubtractsCountsAndKeepsNowValues() {
        MetadataStats delta = distinct(1000).minus(distinct(0));
        for (MetadataStats.Stat stat : MetadataStats.Stat.values()) {
            assertEquals(stat.now ? value(stat, 1000) : 1000, delta.get(stat), stat.name());
        }
    }

    @Test
    void aSnapshotMissingAStatIsRefused() {
        EnumMap<MetadataStats.Stat, Long> v = new EnumMap<>(MetadataStats.Stat.class);
        v.put(MetadataStats.Stat.WAITS, 1L);
        assertThrows(IllegalArgumentException.class, () -> new MetadataStats(v, byCause()));
    }

    /** WAIT_TIME_TOTAL_NS as waitTimeTotalNs. */
    private static String accessorName(MetadataStats.Stat stat) {
        StringBuilder b = new StringBuilder();
        for (String word : stat.name().toLowerCase(Locale.ROOT).split("_")) {
            b.append(b.length() == 0 ? word : Character.toUpperCase(word.charAt(0)) + word.substring(1));
        }
        return b.toString();
    }

    private static MetadataStats distinct(long plus) {
        EnumMap<MetadataStats.Stat, Long> v = new EnumMap<>(MetadataStats.Stat.class);
        for (MetadataStats.Stat stat : MetadataStats.Stat.values()) {
            v.put(stat, value(stat, plus));
        }
        return new MetadataStats(v, byCause());
    }

    private static long value(MetadataStats.Stat stat, long plus) {
        return 100L * (stat.ordinal() + 1) + plus;
    }

    private static Map<Diagnosis.Cause, Long> byCause() {
        Map<Diagnosis.Cause, Long> m = new EnumMap<>(Diagnosis.Cause.class);
        for (Diagnosis.Cause c : Diagnosis.Cause.values()) {
            m.put(c, 0L);
        }
        return m;
    }
}
