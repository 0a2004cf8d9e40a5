package dev.kmeta.cluster;

import java.util.AbstractMap;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Set;

import static dev.kmeta.cluster.ShardTable.EMPTY_TABLE;
import static dev.kmeta.cluster.ShardTable.spread;

/**
 * An immutable hash map cut into 2<sup>b</sup> shards, so that the next version of it, made by a
 * {@link ShardedMapEditor}, copies only the array of shard references and the shards it touched; every other shard
 * is the very same array in both versions.
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
 * <p>The jobs are split by room: this class is the map and its lookup (the hit path, probe inlined: one call to
 * {@link ShardTable#spread}, no other hop); {@link ShardTable} holds the entries and the table operations (probe,
 * insert, backward-shift delete, rehash, sizing); {@link ShardedMapEditor} makes the next version;
 * {@link ShardedMapViews} are the key, value and entry views.
 *
 * <p>Thread-safety: immutable, so safe to share between threads once built (the fields that hold the entries are
 * final and entries are immutable, so even a racy publication shows a complete map; the cached views are
 * stateless). Its views are unmodifiable. A {@link ShardedMapEditor} is not thread-safe: one thread
 * uses it, then calls {@link ShardedMapEditor#build()}.
 *
 * @param <K> the key type, with {@code equals} and {@code hashCode} consistent and stable
 * @param <V> the value type
 */
final class ShardedMap<K, V> extends AbstractMap<K, V> {
    private static final ShardedMap<Object, Object> EMPTY =
            new ShardedMap<>(new ShardTable.Entry[][] {EMPTY_TABLE}, 0, 0);

    /** The shard tables (see {@link ShardTable}); read by the editor and the views, never written once built. */
    final ShardTable.Entry[][] shards;
    final int bits;
    final int size;
    /** Built on first use; racy single-check is fine: the views are stateless apart from final fields. */
    private Set<K> keySetView;
    private Collection<V> valuesView;
    private Set<Map.Entry<K, V>> entrySetView;

    ShardedMap(ShardTable.Entry[][] shards, int bits, int size) {
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
        ShardedMapEditor<K, V> editor = ShardedMap.<K, V>empty().edit();
        source.forEach(editor::put);
        return editor.build();
    }

    /** An editor that starts from this map's entries; this map itself never changes. */
    ShardedMapEditor<K, V> edit() {
        return new ShardedMapEditor<>(this);
    }

    /** The number of shards, a power of two (for tests and diagnostics). */
    int shardCount() {
        return shards.length;
    }

    /** True when shard {@code i} of both maps is the same array: the structural sharing an edit promises. */
    boolean sharesShard(ShardedMap<?, ?> other, int i) {
        return bits == other.bits && shards[i] == other.shards[i];
    }

    /** The value for {@code key}, or null. O(1), allocation-free; {@link ShardTable#find}'s probe, inlined. */
    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        if (key == null) {
            return null;
        }
        int hash = key.hashCode();
        int h = spread(hash);
        ShardTable.Entry[] table = shards[h & (shards.length - 1)];
        int mask = table.length - 1;
        for (int i = (h >>> bits) & mask; ; i = (i + 1) & mask) {
            ShardTable.Entry e = table[i];
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
            view = Collections.unmodifiableSet(new ShardedMapViews.KeySet<>(this));
            keySetView = view;
        }
        return view;
    }

    @Override
    public Collection<V> values() {
        Collection<V> view = valuesView;
        if (view == null) {
            view = Collections.unmodifiableCollection(new ShardedMapViews.Values<>(this));
            valuesView = view;
        }
        return view;
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        Set<Map.Entry<K, V>> view = entrySetView;
        if (view == null) {
            view = Collections.unmodifiableSet(new ShardedMapViews.EntrySet<>(this));
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
    private static boolean entriesIn(ShardTable.Entry[] table, ShardedMap<?, ?> other) {
        for (ShardTable.Entry e : table) {
            if (e != null && !e.value.equals(other.get(e.key))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = 0;
        for (ShardTable.Entry[] table : shards) {
            for (ShardTable.Entry e : table) {
                if (e != null) {
                    h += e.hash ^ e.value.hashCode();
                }
            }
        }
        return h;
    }
}
