package dev.kmeta.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeIndexTest {
    @Test
    void findsEveryNodeAmongManyAndSparseIds() {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            nodes.add(new Node(i * 1024 + (i % 7), "h" + i, 9092));
        }
        NodeIndex index = new NodeIndex(nodes);
        for (Node n : nodes) {
            assertSame(n, index.get(n.id()));
        }
        assertNull(index.get(1));
        assertNull(index.get(-1));
        assertNull(index.get(Integer.MAX_VALUE));
        assertEquals(500, index.size());
    }

    @Test
    void sizesFromZeroToFiveWork() {
        for (int n = 0; n <= 5; n++) {
            List<Node> nodes = Fixtures.nodes(java.util.stream.IntStream.range(0, n).map(i -> i * 3).toArray());
            NodeIndex index = new NodeIndex(nodes);
            for (int id = 0; id < 20; id++) {
                assertEquals(id % 3 == 0 && id / 3 < n ? Fixtures.node(id) : null, index.get(id), "n=" + n + " id=" + id);
            }
        }
    }

    @Test
    void rejectsTwoNodesWithOneId() {
        assertThrows(IllegalArgumentException.class,
                () -> new NodeIndex(List.of(Fixtures.node(3), Fixtures.node(4), new Node(3, "x", 1))));
    }

    @Test
    void allIsSortedAndSameNodesComparesContent() {
        NodeIndex a = new NodeIndex(Fixtures.nodes(5, 1, 3));
        assertEquals(Fixtures.nodes(1, 3, 5), a.all());
        assertTrue(a.sameNodes(new NodeIndex(Fixtures.nodes(3, 5, 1))));
        assertFalse(a.sameNodes(new NodeIndex(Fixtures.nodes(1, 3))));
        assertFalse(a.sameNodes(new NodeIndex(List.of(Fixtures.node(1), Fixtures.node(3), new Node(5, "x", 1)))));
        assertTrue(NodeIndex.EMPTY.sameNodes(new NodeIndex(List.of())));
    }
}
