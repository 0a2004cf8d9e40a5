package dev.kmeta.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * An immutable map from broker id to {@link Node}: open addressing over a power-of-two table, so a lookup is O(1),
 * boxes nothing and allocates nothing. Thread-safe because immutable.
 */
final class NodeIndex {
    static final NodeIndex EMPTY = new NodeIndex(Collections.emptyList());

    private final Node[] table;
    private final int mask;
    private final List<Node> nodes;

    /**
     * @throws IllegalArgumentException if two nodes share an id
     */
    NodeIndex(Collection<Node> nodes) {
        int capacity = Integer.highestOneBit(Math.max(4, nodes.size() * 2) - 1) << 1;
        this.table = new Node[capacity];
        this.mask = capacity - 1;
        List<Node> list = new ArrayList<>(nodes.size());
        for (Node n : nodes) {
            int slot = slot(n.id());
            while (table[slot] != null) {
                if (table[slot].id() == n.id()) {
                    throw new IllegalArgumentException("node id " + n.id() + " given twice: " + table[slot]
                            + " and " + n);
                }
                slot = (slot + 1) & mask;
            }
            table[slot] = n;
            list.add(n);
        }
        list.sort((a, b) -> Integer.compare(a.id(), b.id()));
        this.nodes = Collections.unmodifiableList(list);
    }

    private int slot(int id) {
        int h = id * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    /** The node with this id, or null. */
    Node get(int id) {
        if (id < 0) {
            return null;
        }
        for (int slot = slot(id); ; slot = (slot + 1) & mask) {
            Node n = table[slot];
            if (n == null || n.id() == id) {
                return n;
            }
        }
    }

    /** All nodes, ordered by id. */
    List<Node> all() {
        return nodes;
    }

    int size() {
        return nodes.size();
    }

    /** True when both hold the same nodes (same ids, hosts, ports and racks). */
    boolean sameNodes(NodeIndex other) {
        return nodes.equals(other.nodes);
    }
}
