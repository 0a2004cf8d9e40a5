package dev.kmeta.sender.internal;

import dev.kmeta.cluster.TopicMetadata;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The topics of one translated answer by name, in answer order: a compact map for {@link ResponseTranslator} -
 * two arrays and an open-addressing table of indexes, sized once from the answer, so that a full answer of 1,000
 * topics costs ~16 KB, not a {@code LinkedHashMap}'s ~48 KB of entries (bench FullAnswer). Names are never null and
 * each is put once ({@link #put} refuses a name already there).
 *
 * <p>Not thread-safe while filled; read-only (and safe to share once published) afterwards: the translator fills it,
 * the {@code RefreshResponse} wraps it unmodifiable.
 */
final class TopicsByName extends AbstractMap<String, TopicMetadata> {
    private final String[] names;
    private final TopicMetadata[] topics;
    /** Index + 1 into {@link #names}; 0 is a free slot. */
    private final int[] table;
    private final int mask;
    private int size;

    /** Room for {@code capacity} topics (more are refused). */
    TopicsByName(int capacity) {
        names = new String[capacity];
        topics = new TopicMetadata[capacity];
        int slots = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) * 2; // a power of two >= 2 x capacity
        table = new int[slots];
        mask = slots - 1;
    }

    /**
     * Adds a topic under a name not there yet.
     *
     * @return false (and nothing added) when the name is there already
     * @throws IllegalStateException when full
     */
    boolean add(String name, TopicMetadata topic) {
        int slot = slotOf(name);
        if (table[slot] != 0) {
            return false;
        }
        if (size == names.length) {
            throw new IllegalStateException("more topics than the " + names.length + " room was made for");
        }
        names[size] = name;
        topics[size] = topic;
        table[slot] = ++size;
        return true;
    }

    /** The slot holding {@code name}, or the free slot where it would go. */
    private int slotOf(Object name) {
        int h = name.hashCode();
        int slot = (h ^ (h >>> 16)) & mask;
        while (true) {
            int at = table[slot];
            if (at == 0 || names[at - 1].equals(name)) {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    @Override
    public TopicMetadata get(Object name) {
        if (!(name instanceof String)) {
            return null;
        }
        int at = table[slotOf(name)];
        return at == 0 ? null : topics[at - 1];
    }

    @Override
    public boolean containsKey(Object name) {
        return name instanceof String && table[slotOf(name)] != 0;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Collection<TopicMetadata> values() {
        return new AbstractCollection<>() {
            @Override
            public Iterator<TopicMetadata> iterator() {
                return new Walk<>() {
                    @Override
                    TopicMetadata at(int i) {
                        return topics[i];
                    }
                };
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    @Override
    public Set<Map.Entry<String, TopicMetadata>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, TopicMetadata>> iterator() {
                return new Walk<>() {
                    @Override
                    Map.Entry<String, TopicMetadata> at(int i) {
                        return new SimpleImmutableEntry<>(names[i], topics[i]);
                    }
                };
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    /** Walks the entries in the order they were added. */
    private abstract class Walk<T> implements Iterator<T> {
        private int next;

        abstract T at(int i);

        @Override
        public boolean hasNext() {
            return next < size;
        }

        @Override
        public T next() {
            if (next >= size) {
                throw new NoSuchElementException();
            }
            return at(next++);
        }
    }

    @Override
    public String toString() {
        return "TopicsByName" + Arrays.toString(Arrays.copyOf(names, size));
    }
}
