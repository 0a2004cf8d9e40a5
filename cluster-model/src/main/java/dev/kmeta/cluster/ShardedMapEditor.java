package dev.kmeta.cluster;

import dev.kmeta.cluster.ShardTable.Entry;
import java.util.Arrays;

import static dev.kmeta.cluster.ShardTable.EMPTY_TABLE;
import static dev.kmeta.cluster.ShardTable.countKeys;
import static dev.kmeta.cluster.ShardTable.deleteAt;
import static dev.kmeta.cluster.ShardTable.find;
import static dev.kmeta.cluster.ShardTable.idealBits;
import static dev.kmeta.cluster.ShardTable.insertAbsent;
import static dev.kmeta.cluster.ShardTable.rehash;
import static dev.kmeta.cluster.ShardTable.slotsFor;
import static dev.kmeta.cluster.ShardTable.spread;

/**
 * Makes the next version of a {@link ShardedMap}: reads see the edits so far, and the first write to a shard
 * copies that shard (once per editor). Nothing is copied until the first write that changes something: putting
 * the value a key already has, or removing an absent key, copies nothing. When the key count has moved far enough
 * from what the shards were laid out for (see {@link ShardedMap}), every entry is laid out again.
 *
 * <p>Thread-safety: not thread-safe: one thread edits, then calls {@link #build()} once; the editor is then spent.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class ShardedMapEditor<K, V> {
    private final ShardedMap<K, V> base;
    private Entry[][] shards;
    private int bits;
    private int size;
    /** Per shard: its key count once this editor owns (has copied) it, -1 before; null until the first write. */
    private int[] counts;
    private boolean built;

    ShardedMapEditor(ShardedMap<K, V> base) {
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
        insertNew(s, new Entry(hash, key, value));
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
        return size == 0 ? ShardedMap.empty() : new ShardedMap<>(shards, bits, size);
    }

    private void checkOpen() {
        if (built) {
            throw new IllegalStateException("this editor has built its map already");
        }
    }

    /** Adds an entry whose key is absent to owned shard {@code s}, growing it, or laying out all shards again. */
    private void insertNew(int s, Entry e) {
        Entry[] table = shards[s];
        if (slotsFor(counts[s] + 1) > table.length) {
            table = rehash(table, slotsFor(counts[s] + 1), bits);
            shards[s] = table;
        }
        insertAbsent(table, e, bits);
        counts[s]++;
        size++;
        if (idealBits(size) - bits >= 2) {
            layOut(idealBits(size));
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
        int[] newCounts = countPerShard(shardCount);
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

    /** How many of the entries so far fall into each of {@code shardCount} shards. */
    private int[] countPerShard(int shardCount) {
        int[] perShard = new int[shardCount];
        for (Entry[] table : shards) {
            for (Entry e : table) {
                if (e != null) {
                    perShard[spread(e.hash) & (shardCount - 1)]++;
                }
            }
        }
        return perShard;
    }
}
