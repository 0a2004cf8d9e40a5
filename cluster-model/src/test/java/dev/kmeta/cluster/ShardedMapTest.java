package dev.kmeta.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ShardedMapTest {
    /** A key whose hash code is chosen by the test, to force collisions. */
    private static final class Key {
        final int hash;
        final String id;

        Key(int hash, String id) {
            this.hash = hash;
            this.id = id;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).hash == hash && ((Key) o).id.equals(id);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public String toString() {
            return id + "#" + hash;
        }
    }

    private static <K, V> ShardedMap<K, V> with(ShardedMap<K, V> base, K key, V value) {
        ShardedMapEditor<K, V> e = base.edit();
        e.put(key, value);
        return e.build();
    }

    private static <K, V> ShardedMap<K, V> without(ShardedMap<K, V> base, K key) {
        ShardedMapEditor<K, V> e = base.edit();
        e.remove(key);
        return e.build();
    }

    private static Map<String, Integer> numbered(int n) {
        Map<String, Integer> m = new HashMap<>();
        for (int i = 0; i < n; i++) {
            m.put(String.format("orders-%05d", i), i);
        }
        return m;
    }

    @Test
    void theEmptyMapHasNothing() {
        ShardedMap<String, String> m = ShardedMap.empty();
        assertEquals(0, m.size());
        assertTrue(m.isEmpty());
        assertNull(m.get("a"));
        assertNull(m.get(null));
        assertFalse(m.containsKey(null));
        assertFalse(m.keySet().iterator().hasNext());
        assertThrows(NoSuchElementException.class, () -> m.values().iterator().next());
        assertEquals(Map.of(), m);
        assertEquals(Map.of().hashCode(), m.hashCode());
        assertEquals(1, m.shardCount());
    }

    @Test
    void anEditLeavesItsBaseUnchanged() {
        ShardedMap<String, Integer> one = with(ShardedMap.empty(), "a", 1);
        ShardedMap<String, Integer> two = with(one, "b", 2);
        ShardedMap<String, Integer> replaced = with(two, "a", 10);
        ShardedMap<String, Integer> removed = without(replaced, "b");
        assertEquals(Map.of("a", 1), one);
        assertEquals(Map.of("a", 1, "b", 2), two);
        assertEquals(Map.of("a", 10, "b", 2), replaced);
        assertEquals(Map.of("a", 10), removed);
        assertEquals(Map.of(), without(removed, "a"));
    }

    @Test
    void anEditorReadsItsOwnWritesAndReturnsPreviousValues() {
        ShardedMapEditor<String, Integer> e = ShardedMap.copyOf(Map.of("a", 1, "b", 2)).edit();
        assertNull(e.put("c", 3));
        assertEquals(1, e.put("a", 11));
        assertEquals(2, e.remove("b"));
        assertNull(e.remove("b"));
        assertNull(e.remove(null));
        assertEquals(11, e.get("a"));
        assertEquals(3, e.get("c"));
        assertNull(e.get("b"));
        assertNull(e.get(null));
        assertEquals(2, e.size());
        assertEquals(Map.of("a", 11, "c", 3), e.build());
    }

    @Test
    void anEditThatChangesNothingReturnsTheSameMap() {
        ShardedMap<String, Integer> m = ShardedMap.copyOf(numbered(100));
        ShardedMapEditor<String, Integer> e = m.edit();
        e.remove("absent");
        e.put("orders-00007", m.get("orders-00007"));
        assertSame(m, e.build());
    }

    @Test
    void anEditorBuildsOnce() {
        ShardedMapEditor<String, Integer> e = ShardedMap.<String, Integer>empty().edit();
        e.put("a", 1);
        ShardedMap<String, Integer> built = e.build();
        assertThrows(IllegalStateException.class, e::build);
        assertThrows(IllegalStateException.class, () -> e.put("b", 2));
        assertThrows(IllegalStateException.class, () -> e.remove("a"));
        assertEquals(Map.of("a", 1), built);
    }

    @Test
    void nullKeysAndValuesAreRejected() {
        ShardedMapEditor<String, Integer> e = ShardedMap.<String, Integer>empty().edit();
        assertThrows(NullPointerException.class, () -> e.put(null, 1));
        assertThrows(NullPointerException.class, () -> e.put("a", null));
        assertEquals(0, e.size());
    }

    @Test
    void collidingKeysAreAllFoundAndSurviveRemovalFromTheMiddleOfTheirRun() {
        Map<Key, Integer> model = new HashMap<>();
        ShardedMap<Key, Integer> m = ShardedMap.empty();
        // 40 keys with one hash code (one shard, one probe run) and 40 more with hash codes 0..39 around them.
        for (int i = 0; i < 40; i++) {
            Key same = new Key(12345, "same-" + i);
            Key near = new Key(i, "near-" + i);
            m = with(with(m, same, i), near, 100 + i);
            model.put(same, i);
            model.put(near, 100 + i);
        }
        assertEquals(model, m);
        for (int i = 0; i < 40; i += 3) {
            m = without(m, new Key(12345, "same-" + i));
            model.remove(new Key(12345, "same-" + i));
            m = without(m, new Key(i, "near-" + i));
            model.remove(new Key(i, "near-" + i));
            assertEquals(model, m, "after removing the " + i + "th");
            for (Key k : model.keySet()) {
                assertEquals(model.get(k), m.get(new Key(k.hash, k.id)), k.toString());
            }
        }
        assertNull(m.get(new Key(12345, "same-0")));
        assertNull(m.get(new Key(12345, "other")));
    }

    @Test
    void tenThousandKeysSpreadOverManyShardsAndAOneKeyEditCopiesOneShard() {
        Map<String, Integer> source = numbered(10_000);
        ShardedMap<String, Integer> m = ShardedMap.copyOf(source);
        assertEquals(256, m.shardCount());
        assertEquals(source, m);
        for (Map.Entry<String, Integer> e : source.entrySet()) {
            assertEquals(e.getValue(), m.get(new String(e.getKey())), e.getKey());
        }
        ShardedMap<String, Integer> next = with(m, "orders-00042", -1);
        int shared = 0;
        for (int s = 0; s < m.shardCount(); s++) {
            shared += next.sharesShard(m, s) ? 1 : 0;
        }
        assertEquals(m.shardCount() - 1, shared);
        assertEquals(-1, next.get("orders-00042"));
        assertEquals(42, m.get("orders-00042"));
        assertNotEquals(m, next);
    }

    @Test
    void numberedNamesAreSpreadEvenly() {
        ShardedMap<String, Integer> m = ShardedMap.copyOf(numbered(10_000));
        int[] perShard = new int[m.shardCount()];
        for (String k : m.keySet()) {
            perShard[ShardTable.spread(k.hashCode()) & (m.shardCount() - 1)]++;
        }
        int max = 0;
        for (int n : perShard) {
            max = Math.max(max, n);
        }
        // The mean is 39; a poor spread (e.g. using the raw hash) puts hundreds in one shard.
        assertTrue(max < 80, "fullest shard holds " + max);
    }

    @Test
    void theShardCountFollowsTheSizeBothWays() {
        ShardedMap<String, Integer> m = ShardedMap.copyOf(numbered(10_000));
        ShardedMapEditor<String, Integer> e = m.edit();
        for (int i = 50; i < 10_000; i++) {
            e.remove(String.format("orders-%05d", i));
        }
        ShardedMap<String, Integer> small = e.build();
        assertEquals(numbered(50), small);
        assertTrue(small.shardCount() <= 32, "shards: " + small.shardCount());
        assertEquals(256, m.shardCount(), "the base is unchanged");
        assertEquals(10_000, m.size());
    }

    @Test
    void tablesOfIdenticalIdsAndUuidKeysWork() {
        Map<UUID, String> source = new HashMap<>();
        for (int i = 0; i < 3000; i++) {
            source.put(new UUID(0x6b6d657461L, i), "t" + i);
        }
        ShardedMap<UUID, String> m = ShardedMap.copyOf(source);
        assertEquals(source, m);
        assertEquals("t77", m.get(new UUID(0x6b6d657461L, 77)));
        assertNull(m.get(new UUID(1, 77)));
        assertNull(m.get("not a uuid"));
    }

    @Test
    void viewsIterateEveryEntryOnceAndAreUnmodifiable() {
        Map<String, Integer> source = numbered(1000);
        ShardedMap<String, Integer> m = ShardedMap.copyOf(source);
        List<String> keys = new ArrayList<>(m.keySet());
        assertEquals(1000, keys.size());
        assertEquals(source.keySet(), new HashSet<>(keys));
        assertEquals(source.keySet(), m.keySet());
        assertEquals(m.keySet(), source.keySet());
        List<Integer> values = new ArrayList<>(m.values());
        values.sort(null);
        List<Integer> expected = new ArrayList<>(source.values());
        expected.sort(null);
        assertEquals(expected, values);
        assertEquals(source.entrySet(), m.entrySet());
        assertTrue(m.entrySet().contains(Map.entry("orders-00003", 3)));
        assertFalse(m.entrySet().contains(Map.entry("orders-00003", 4)));
        assertFalse(m.entrySet().contains("orders-00003"));
        assertTrue(m.keySet().contains("orders-00999"));
        assertFalse(m.keySet().contains("orders-01000"));
        assertEquals(source.hashCode(), m.hashCode());
        assertEquals(source.toString().length(), m.toString().length());

        Set<String> keySet = m.keySet();
        assertThrows(UnsupportedOperationException.class, () -> keySet.remove("orders-00001"));
        assertThrows(UnsupportedOperationException.class, () -> keySet.remove("absent"));
        assertThrows(UnsupportedOperationException.class, () -> keySet.add("x"));
        assertThrows(UnsupportedOperationException.class, keySet::clear);
        assertThrows(UnsupportedOperationException.class, () -> m.values().removeIf(v -> true));
        assertThrows(UnsupportedOperationException.class, () -> m.put("x", 1));
        assertThrows(UnsupportedOperationException.class, () -> m.remove("orders-00001"));
        assertThrows(UnsupportedOperationException.class, m::clear);
        Iterator<String> it = keySet.iterator();
        it.next();
        assertThrows(UnsupportedOperationException.class, it::remove);
        assertEquals(1000, m.size());
    }

    @Test
    void equalityIgnoresShardLayoutAndHistory() {
        ShardedMap<String, Integer> built = ShardedMap.copyOf(numbered(300));
        ShardedMapEditor<String, Integer> e = ShardedMap.copyOf(numbered(3000)).edit();
        for (int i = 300; i < 3000; i++) {
            e.remove(String.format("orders-%05d", i));
        }
        ShardedMap<String, Integer> shrunk = e.build();
        assertEquals(built, shrunk);
        assertEquals(shrunk, built);
        assertEquals(built.hashCode(), shrunk.hashCode());
        assertEquals(numbered(300), shrunk);
        assertNotEquals(built, with(shrunk, "orders-00001", 2));
        assertNotEquals(built, without(shrunk, "orders-00001"));
        assertNotEquals(built, with(without(shrunk, "orders-00001"), "other", 1));
        assertFalse(built.equals(null));
    }

    /** Random edits in random batches, checked after every batch against a HashMap and against the older versions. */
    @Test
    void randomEditsFollowAHashMap() {
        for (long seed = 1; seed <= 40; seed++) {
            Random random = new Random(seed);
            int keySpace = 1 + random.nextInt(seed % 4 == 0 ? 20_000 : 300);
            Map<Key, Integer> model = new HashMap<>();
            ShardedMap<Key, Integer> m = ShardedMap.empty();
            List<ShardedMap<Key, Integer>> versions = new ArrayList<>();
            List<Map<Key, Integer>> models = new ArrayList<>();
            for (int batch = 0; batch < 30; batch++) {
                ShardedMapEditor<Key, Integer> e = m.edit();
                int ops = random.nextInt(batch % 7 == 0 ? 5000 : 50);
                boolean growing = batch < 15;
                for (int op = 0; op < ops; op++) {
                    int n = random.nextInt(keySpace);
                    // Few distinct hash codes in small key spaces, so probe runs and shards collide.
                    Key k = new Key(keySpace < 100 ? n % 7 : n * 31, "k" + n);
                    if (random.nextInt(10) < (growing ? 7 : 3)) {
                        assertEquals(model.put(k, op), e.put(k, op), "seed " + seed);
                    } else {
                        assertEquals(model.remove(k), e.remove(k), "seed " + seed);
                    }
                    assertEquals(model.size(), e.size(), "seed " + seed);
                }
                m = e.build();
                assertEquals(model, m, "seed " + seed + ", batch " + batch);
                assertEquals(model.hashCode(), m.hashCode(), "seed " + seed + ", batch " + batch);
                versions.add(m);
                models.add(new HashMap<>(model));
            }
            for (int v = 0; v < versions.size(); v++) {
                assertEquals(models.get(v), versions.get(v), "seed " + seed + ", version " + v);
            }
        }
    }

    @Test
    void slotsAndBitsFormulas() {
        assertEquals(1, ShardTable.slotsFor(0));
        assertEquals(2, ShardTable.slotsFor(1));
        assertEquals(4, ShardTable.slotsFor(2));
        assertEquals(8, ShardTable.slotsFor(3));
        assertEquals(8, ShardTable.slotsFor(4));
        assertEquals(16, ShardTable.slotsFor(5));
        assertEquals(128, ShardTable.slotsFor(64));
        assertEquals(0, ShardTable.idealBits(0));
        assertEquals(0, ShardTable.idealBits(1));
        assertEquals(8, ShardTable.idealBits(10_000));
        assertEquals(10, ShardTable.idealBits(100_000));
    }
}
