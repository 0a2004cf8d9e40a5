package dev.kmeta.cluster;

import dev.kmeta.cluster.ShardTable.Entry;
import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The key set, values and entry set of a {@link ShardedMap}, and the cursor they iterate with: it walks the shards,
 * then the slots of each, skipping empty slots. {@link ShardedMap} wraps each view unmodifiable.
 *
 * <p>Thread-safety: each view holds only its final map, which is immutable, so views may be shared; an iterator is
 * used by one thread.
 */
final class ShardedMapViews {
    private ShardedMapViews() {
    }

    /** Walks the shards of a map, then the slots of each, skipping empty slots. */
    private abstract static class Cursor<T> implements Iterator<T> {
        private final Entry[][] shards;
        private int shard;
        private int index = -1;
        private Entry[] table;

        Cursor(ShardedMap<?, ?> map) {
            shards = map.shards;
            table = shards[0];
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

    /** The keys of {@code map}. */
    static final class KeySet<K> extends AbstractSet<K> {
        private final ShardedMap<K, ?> map;

        KeySet(ShardedMap<K, ?> map) {
            this.map = map;
        }

        @Override
        public Iterator<K> iterator() {
            return new Cursor<K>(map) {
                @Override
                @SuppressWarnings("unchecked")
                K at(Entry e) {
                    return (K) e.key;
                }
            };
        }

        @Override
        public int size() {
            return map.size();
        }

        @Override
        public boolean contains(Object o) {
            return map.containsKey(o);
        }
    }

    /** The values of {@code map}. */
    static final class Values<V> extends AbstractCollection<V> {
        private final ShardedMap<?, V> map;

        Values(ShardedMap<?, V> map) {
            this.map = map;
        }

        @Override
        public Iterator<V> iterator() {
            return new Cursor<V>(map) {
                @Override
                @SuppressWarnings("unchecked")
                V at(Entry e) {
                    return (V) e.value;
                }
            };
        }

        @Override
        public int size() {
            return map.size();
        }
    }

    /** The entries of {@code map}, each made on the fly (an immutable key-value pair). */
    static final class EntrySet<K, V> extends AbstractSet<Map.Entry<K, V>> {
        private final ShardedMap<K, V> map;

        EntrySet(ShardedMap<K, V> map) {
            this.map = map;
        }

        @Override
        public Iterator<Map.Entry<K, V>> iterator() {
            return new Cursor<Map.Entry<K, V>>(map) {
                @Override
                @SuppressWarnings("unchecked")
                Map.Entry<K, V> at(Entry e) {
                    return new AbstractMap.SimpleImmutableEntry<>((K) e.key, (V) e.value);
                }
            };
        }

        @Override
        public int size() {
            return map.size();
        }

        @Override
        public boolean contains(Object o) {
            if (!(o instanceof Map.Entry)) {
                return false;
            }
            Map.Entry<?, ?> e = (Map.Entry<?, ?>) o;
            Object v = map.get(e.getKey());
            return v != null && v.equals(e.getValue());
        }
    }
}
