package dev.kmeta.cluster;

/**
 * The tables a {@link ShardedMap} is made of, and what is done to one: hashing, probing, inserting, deleting and
 * rehashing. A table is an array of {@link Entry}s, a power of two long, linear probing, at most half full; the
 * slot a key starts from is {@code (spread(hash) >>> bits) & (length - 1)}, {@code bits} being the map's shard bits
 * (the low bits pick the shard). {@link ShardedMap#get} inlines the probe; everything else goes through here.
 *
 * <p>Thread-safety: stateless (static methods only). A table is written only by the one {@link ShardedMapEditor}
 * that owns it, before the map holding it is built; after that it is never written. {@link #EMPTY_TABLE} is never
 * written.
 */
final class ShardTable {
    /** The one table of a shard with no keys: a single empty slot. Never written. */
    static final Entry[] EMPTY_TABLE = new Entry[1];

    private ShardTable() {
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

    /** Mixes the high bits of a hash into the low ones (Fibonacci multiply, then fold). */
    static int spread(int hash) {
        int h = hash * 0x9E3779B9;
        return h ^ (h >>> 16);
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
    static int find(Entry[] table, Object key, int hash, int h, int bits) {
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
    static void insertAbsent(Entry[] table, Entry e, int bits) {
        int mask = table.length - 1;
        int i = (spread(e.hash) >>> bits) & mask;
        while (table[i] != null) {
            i = (i + 1) & mask;
        }
        table[i] = e;
    }

    /** The number of entries in a table. */
    static int countKeys(Entry[] table) {
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
    static Entry[] rehash(Entry[] table, int slots, int bits) {
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

    /**
     * Empties slot {@code i} of a table and moves back the entries after it that would otherwise no longer be found
     * (backward-shift deletion: no tombstones, probes stay short).
     */
    static void deleteAt(Entry[] table, int i, int bits) {
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
