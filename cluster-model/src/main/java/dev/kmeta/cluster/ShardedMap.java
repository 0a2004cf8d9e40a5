package dev.kmeta.cluster;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * An immutable hash map cut into 2<sup>b</sup> shards, so that the next version of it, made by an {@link Editor},
 * copies only the array of shard references and the shards it touched; every other shard is the very same array in
 * both versions.
 *
 * <p>Each shard is one open-addressing table of immutable entries (key, value and the key's hash code, like
 * {@link java.util.HashMap}'s nodes), linear probing, at most half full. A lookup mixes the key's hash once, picks
 * the shard with its low {@code b} bits and the first slot with the next bits, and compares a stored hash code
 * before it compares keys, so a probe that meets another key costs no {@code equals}. At that load factor a hit
 * probes at most 1.5 slots on average. It allocates nothing and takes no lock. Against {@code HashMap.get} it has
 * one more dependent load (the shard) and a multiply: measured 2 to 4 ns more per lookup (see docs/benchmarks.md).
 * Entries are shared between versions; an edit allocates one entry per key it puts.
 *
 * <p>Cost of an update: O(S + k &times; n / S) for k changed keys among n, with S = 2<sup>b</sup> shards, and
 * b chosen from n so that S is about 2&radic;n: for 10,000 keys, 256 shards of about 40 keys each, so one changed
 * key copies the 1 KB array of shard references and one shard of 64 or 128 slots (0.25 or 0.5 KB), and the editor
 * keeps a 1 KB array of per-shard counts. When n has grown or shrunk enough that b should change by 2 or more
 * (n grew or shrank about 16-fold since the shards were laid out), the whole map is laid out again, O(n): amortized
 * O(1) per key added.
 *
 * <p>Null keys and null values are not allowed; {@link #get(Object) get(null)} and {@code containsKey(null)} answer
 * null and false. Iteration order is unspecified. {@link #equals} and {@link #hashCode} follow {@link Map}.
 *
 * <p>Thread-safety: immutable, so safe to share between threads once built (the fields that hold the entries are
 * final and entries are immutable, so even a racy publication shows a complete map; the cached views are
 * stateless). Its views are unmodifiable. An {@link Editor} is not thread-safe: one thread
 * uses it, then calls {@link Editor#build()}.
 *
 * @param <K> the key type, with {@code equals} and {@code hashCode} consistent and stable
 * @param <V> the value type
 */
final class ShardedMap<K, V> extends AbstractMap<K, V> {
    /** The one table of a shard with no keys: a single empty slot. Never written. */
    private static final Entry[] EMPTY_TABLE = new Entry[1];
    private static final ShardedMap<Object, Object> EMPTY =
            new ShardedMap<>(new Entry[][] {EMPTY_TABLE}, 0, 0);

    private final Entry[][] shards;
    private final int bits;
    private final int size;
    /** Built on first use; racy single-check is fine: the views are stateless apart from final fields. */
    private Set<K> keySetView;
    private Collection<V> valuesView;
    private Set<Map.Entry<K, V>> entrySetView;

    private ShardedMap(Entry[][] shards, int bits, int size) {
        this.shards = shards;
        this.bits = bits;
        this.size = size;
    }

    /** The empty map. */
    @SuppressWarnings("unchecked")
    static <K, V> ShardedMap<K, V> empty() {
        return (ShardedMap<K, V>) EMPTY;
    }

    /** A map with the entries of {@code source}. O(n). */
    static <K, V> ShardedMap<K, V> copyOf(Map<? extends K, ? extends V> source) {
        Editor<K, V> editor = ShardedMap.<K, V>empty().edit();
        source.forEach(editor::put);
        return editor.build();
    }

    /** An editor that starts from this map's entries; this map itself never changes. */
    Editor<K, V> edit() {
        return new Editor<>(this);
    }

    /** The number of shards, a power of two (for tests and diagnostics). */
    int shardCount() {
        return shards.length;
    }

    /** True when shard {@code i} of both maps is the same array: the structural sharing an edit promises. */
    boolean sharesShard(ShardedMap<?, ?> other, int i) {
        return bits == other.bits && shards[i] == other.shards[i];
    }

    // ---- hashing and probing --------------------------------------------------------------------------------------

    /** Mixes the high bits of a hash into the low ones (Fibonacci multiply, then fold). */
    static int spread(int hash) {
        int h = hash * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    /** One key and its value, with the key's hash code. Immutable; shared by every version that holds it. */
    static final class Entry {
        final int hash;
        final Object key;
        final Object value;

        Entry(int hash, Object key, Object value) {
            this.hash = hash;
            this.key = key;
            this.value = value;
        }
    }

    /** The smallest power-of-two slot count that keeps {@code count} keys at most half full; at least 1. */
    static int slotsFor(int count) {
        return count == 0 ? 1 : Integer.highestOneBit(count * 2 - 1) << 1;
    }

    /** The number of shard bits for {@code n} keys: about log2(2 &radic;n). */
    static int idealBits(int n) {
        if (n < 2) {
            return 0;
        }
        int log2 = 32 - Integer.numberOfLeadingZeros(n - 1);
        return (log2 + 1) / 2 + 1;
    }

    /** The slot of {@code key} (whose hash code is {@code hash}, spread {@code h}) in {@code table}, or -1. */
    private static int find(Entry[] table, Object key, int hash, int h, int bits) {
        int mask = table.length - 1;
        for (int i = (h >>> bits) & mask; ; i = (i + 1) & mask) {
            Entry e = table[i];
            if (e == null) {
                return -1;
            }
            if (e.hash == hash && (e.key == key || key.equals(e.key))) {
                return i;
            }
        }
    }

    /** Puts an entry whose key is known to be absent into a table with room for it. */
    private static void insertAbsent(Entry[] table, Entry e, int bits) {
        int mask = table.length - 1;
        int i = (spread(e.hash) >>> bits) & mask;
        while (table[i] != null) {
            i = (i + 1) & mask;
        }
        table[i] = e;
    }

    /** The number of entries in a table. */
    private static int countKeys(Entry[] table) {
        int n = 0;
        for (Entry e : table) {
            if (e != null) {
                n++;
            }
        }
        return n;
    }

    /**
     * A new table with {@code slots} slots holding every entry of {@code table}; for one slot (no entry), the shared
     * empty table, which must not be written.
     */
    private static Entry[] rehash(Entry[] table, int slots, int bits) {
        if (slots == 1) {
            return EMPTY_TABLE;
        }
        Entry[] out = new Entry[slots];
        for (Entry e : table) {
            if (e != null) {
                insertAbsent(out, e, bits);
            }
        }
        return out;
    }

    // ---- Map ------------------------------------------------------------------------------------------------------

    /** The value for {@code key}, or null. O(1), allocation-free. */
    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        if (key == null) {
            return null;
        }
        int hash = key.hashCode();
        int h = spread(hash);
        Entry[] table = shards[h & (shards.length - 1)];
        int mask = table.length - 1;
        for (int i = (h >>> bits) & mask; ; i = (i + 1) & mask) {
            Entry e = table[i];
            if (e == null) {
                return null;
            }
            if (e.hash == hash && (e.key == key || key.equals(e.key))) {
                return (V) e.value;
            }
        }
    }

    @Override
    public boolean containsKey(Object key) {
        return get(key) != null;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean isEmpty() {
        return size == 0;
    }

    @Override
    public Set<K> keySet() {
        Set<K> view = keySetView;
        if (view == null) {
            view = Collections.unmodifiableSet(new KeySet());
            keySetView = view;
        }
        return view;
    }

    @Override
    public Collection<V> values() {
        Collection<V> view = valuesView;
        if (view == null) {
            view = Collections.unmodifiableCollection(new Values());
            valuesView = view;
        }
        return view;
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        Set<Map.Entry<K, V>> view = entrySetView;
        if (view == null) {
            view = Collections.unmodifiableSet(new EntrySet());
            entrySetView = view;
        }
        return view;
    }

    /**
     * Map equality. Against another {@code ShardedMap} with as many shards, shards that are the same array are
     * skipped, so comparing two versions of one map costs what differs between them.
     */
    @Override
    public boolean equals(Object o) {
        if (o == this) {
            return true;
        }
        if (!(o instanceof ShardedMap)) {
            return super.equals(o);
        }
        ShardedMap<?, ?> other = (ShardedMap<?, ?>) o;
        if (other.size != size) {
            return false;
        }
        for (int s = 0; s < shards.length; s++) {
            if (!sharesShard(other, s) && !entriesIn(shards[s], other)) {
                return false;
            }
        }
        return true;
    }

    /** True when every entry of {@code table} is in {@code other} with an equal value. */
    private static boolean entriesIn(Entry[] table, ShardedMap<?, ?> other) {
        for (Entry e : table) {
            if (e != null && !e.value.equals(other.get(e.key))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = 0;
        for (Entry[] table : shards) {
            for (Entry e : table) {
                if (e != null) {
                    h += e.hash ^ e.value.hashCode();
                }
            }
        }
        return h;
    }

    // ---- views ----------------------------------------------------------------------------------------------------

    /** Walks the shards, then the slots of each, skipping empty slots. */
    private abstract class Cursor<T> implements Iterator<T> {
        private int shard;
        private int index = -1;
        private Entry[] table = shards[0];

        Cursor() {
            advance();
        }

        private void advance() {
            index++;
            while (true) {
                while (index < table.length) {
                    if (table[index] != null) {
                        return;
                    }
                    index++;
                }
                if (++shard == shards.length) {
                    return;
                }
                table = shards[shard];
                index = 0;
            }
        }

        @Override
        public boolean hasNext() {
            return shard < shards.length;
        }

        @Override
        public T next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            T out = at(table[index]);
            advance();
            return out;
        }

        /** The element made of this entry. */
        abstract T at(Entry e);
    }

    private final class KeySet extends AbstractSet<K> {
        @Override
        public Iterator<K> iterator() {
            return new Cursor<K>() {
                @Override
                @SuppressWarnings("unchecked")
                K at(Entry e) {
                    return (K) e.key;
                }
            };
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public boolean contains(Object o) {
            return containsKey(o);
        }
    }

    private final class Values extends AbstractCollection<V> {
        @Override
        public Iterator<V> iterator() {
            return new Cursor<V>() {
                @Override
                @SuppressWarnings("unchecked")
                V at(Entry e) {
                    return (V) e.value;
                }
            };
        }

        @Override
        public int size() {
            return size;
        }
    }

    private final class EntrySet extends AbstractSet<Map.Entry<K, V>> {
        @Override
        public Iterator<Map.Entry<K, V>> iterator() {
            return new Cursor<Map.Entry<K, V>>() {
                @Override
                @SuppressWarnings("unchecked")
                Map.Entry<K, V> at(Entry e) {
                    return new AbstractMap.SimpleImmutableEntry<>((K) e.key, (V) e.value);
                }
            };
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public boolean contains(Object o) {
            if (!(o instanceof Map.Entry)) {
                return false;
            }
            Map.Entry<?, ?> e = (Map.Entry<?, ?>) o;
            Object v = get(e.getKey());
            return v != null && v.equals(e.getValue());
        }
    }

    // ---- editing --------------------------------------------------------------------------------------------------

    /**
     * Makes the next version of a {@link ShardedMap}: reads see the edits so far, and the first write to a shard
     * copies that shard (once per editor). Nothing is copied until the first write that changes something: putting
     * the value a key already has, or removing an absent key, copies nothing.
     *
     * <p>Not thread-safe: one thread edits, then calls {@link #build()} once; the editor is then spent.
     */
    static final class Editor<K, V> {
        private final ShardedMap<K, V> base;
        private Entry[][] shards;
        private int bits;
        private int size;
        /** Per shard: its key count once this editor owns (has copied) it, -1 before; null until the first write. */
        private int[] counts;
        private boolean built;

        private Editor(ShardedMap<K, V> base) {
            this.base = base;
            this.shards = base.shards;
            this.bits = base.bits;
            this.size = base.size;
        }

        /** The value for {@code key} with the edits so far, or null. */
        @SuppressWarnings("unchecked")
        V get(Object key) {
            if (key == null) {
                return null;
            }
            int hash = key.hashCode();
            int h = spread(hash);
            Entry[] table = shards[h & (shards.length - 1)];
            int i = find(table, key, hash, h, bits);
            return i < 0 ? null : (V) table[i].value;
        }

        /** The number of keys with the edits so far. */
        int size() {
            return size;
        }

        /**
         * Maps {@code key} to {@code value}; returns the previous value or null.
         *
         * @throws NullPointerException for a null key or value
         */
        @SuppressWarnings("unchecked")
        V put(K key, V value) {
            checkOpen();
            if (key == null || value == null) {
                throw new NullPointerException("null key or value: " + key + " -> " + value);
            }
            int hash = key.hashCode();
            int h = spread(hash);
            int s = h & (shards.length - 1);
            int i = find(shards[s], key, hash, h, bits);
            if (i >= 0 && shards[s][i].value == value) {
                return value;
            }
            Entry[] table = own(s);
            if (i >= 0) {
                V old = (V) table[i].value;
                table[i] = new Entry(hash, table[i].key, value);
                return old;
            }
            if (slotsFor(counts[s] + 1) > table.length) {
                table = rehash(table, slotsFor(counts[s] + 1), bits);
                shards[s] = table;
            }
            insertAbsent(table, new Entry(hash, key, value), bits);
            counts[s]++;
            size++;
            if (idealBits(size) - bits >= 2) {
                layOut(idealBits(size));
            }
            return null;
        }

        /** Removes {@code key}; returns its value, or null when it was absent (then nothing is copied). */
        @SuppressWarnings("unchecked")
        V remove(Object key) {
            checkOpen();
            if (key == null) {
                return null;
            }
            int hash = key.hashCode();
            int h = spread(hash);
            int s = h & (shards.length - 1);
            int i = find(shards[s], key, hash, h, bits);
            if (i < 0) {
                return null;
            }
            Entry[] table = own(s);
            V old = (V) table[i].value;
            deleteAt(table, i, bits);
            counts[s]--;
            size--;
            return old;
        }

        /**
         * The new map. Shards this editor never wrote are shared with the map it started from; when nothing was
         * written, that very map is returned.
         *
         * @throws IllegalStateException if called twice
         */
        ShardedMap<K, V> build() {
            checkOpen();
            built = true;
            if (counts == null) {
                return base;
            }
            if (Math.abs(idealBits(size) - bits) >= 2) {
                layOut(idealBits(size));
            }
            shrinkSparseShards();
            return size == 0 ? empty() : new ShardedMap<>(shards, bits, size);
        }

        private void checkOpen() {
            if (built) {
                throw new IllegalStateException("this editor has built its map already");
            }
        }

        /** Shard {@code s} as a table this editor may write, copying it (and the shard array) on first use. */
        private Entry[] own(int s) {
            if (counts == null) {
                shards = shards.clone();
                counts = new int[shards.length];
                Arrays.fill(counts, -1);
            }
            if (counts[s] < 0) {
                counts[s] = countKeys(shards[s]);
                shards[s] = shards[s].clone();
            }
            return shards[s];
        }

        /** Rehashes owned shards that deletions left less than 1/8 full, so tables stay small and probes short. */
        private void shrinkSparseShards() {
            for (int s = 0; s < shards.length; s++) {
                if (counts[s] >= 0 && slotsFor(counts[s]) * 4 <= shards[s].length) {
                    shards[s] = rehash(shards[s], slotsFor(counts[s]), bits);
                }
            }
        }

        /** Lays every entry out again over 2^newBits shards, all then owned by this editor. O(n). */
        private void layOut(int newBits) {
            int shardCount = 1 << newBits;
            int[] newCounts = new int[shardCount];
            for (Entry[] table : shards) {
                for (Entry e : table) {
                    if (e != null) {
                        newCounts[spread(e.hash) & (shardCount - 1)]++;
                    }
                }
            }
            Entry[][] newShards = new Entry[shardCount][];
            for (int s = 0; s < shardCount; s++) {
                newShards[s] = newCounts[s] == 0 ? EMPTY_TABLE : new Entry[slotsFor(newCounts[s])];
            }
            for (Entry[] table : shards) {
                for (Entry e : table) {
                    if (e != null) {
                        insertAbsent(newShards[spread(e.hash) & (shardCount - 1)], e, newBits);
                    }
                }
            }
            for (int s = 0; s < shardCount; s++) {
                if (newCounts[s] == 0) {
                    newCounts[s] = -1; // the shared empty table: not owned, copied on first write
                }
            }
            shards = newShards;
            counts = newCounts;
            bits = newBits;
        }

        /**
         * Empties slot {@code i} of a linear-probing table and moves back the entries after it that would otherwise
         * no longer be found (backward-shift deletion: no tombstones, probes stay short).
         */
        private static void deleteAt(Entry[] table, int i, int bits) {
            int mask = table.length - 1;
            int hole = i;
            for (int j = (hole + 1) & mask; table[j] != null; j = (j + 1) & mask) {
                int home = (spread(table[j].hash) >>> bits) & mask;
                if (((j - home) & mask) >= ((j - hole) & mask)) {
                    table[hole] = table[j];
                    hole = j;
                }
            }
            table[hole] = null;
        }
    }
}
