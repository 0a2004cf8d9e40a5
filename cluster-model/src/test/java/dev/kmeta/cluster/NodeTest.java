package dev.kmeta.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class NodeTest {
    @Test
    void accessorsReturnWhatWasGiven() {
        Node n = new Node(7, "kafka-7.internal", 19092, "eu-west-1a");
        assertEquals(7, n.id());
        assertEquals("kafka-7.internal", n.host());
        assertEquals(19092, n.port());
        assertEquals("eu-west-1a", n.rack());
        assertEquals("kafka-7.internal:19092", n.address());
        assertNull(new Node(7, "h", 1).rack());
    }

    @Test
    void equalWhenIdHostPortAndRackAreEqual() {
        Node a = new Node(1, "h", 9092, "r1");
        Node same = new Node(1, "h", 9092, "r1");
        assertEquals(a, same);
        assertEquals(a.hashCode(), same.hashCode());
        assertEquals(new Node(1, "h", 9092), new Node(1, "h", 9092, null));
        assertEquals(new Node(1, "h", 9092).hashCode(), new Node(1, "h", 9092, null).hashCode());
    }

    @Test
    void aMovedBrokerIsNotEqual() {
        Node a = new Node(1, "h", 9092, "r1");
        assertNotEquals(a, new Node(2, "h", 9092, "r1"));
        assertNotEquals(a, new Node(1, "h2", 9092, "r1"));
        assertNotEquals(a, new Node(1, "h", 9093, "r1"));
        assertNotEquals(a, new Node(1, "h", 9092, "r2"));
        assertNotEquals(a, new Node(1, "h", 9092));
        assertNotEquals(new Node(1, "h", 9092), a);
        assertNotEquals(a, "1@h:9092");
        assertNotEquals(a, null);
    }

    @Test
    void rejectsBadInput() {
        assertThrows(IllegalArgumentException.class, () -> new Node(-1, "h", 9092));
        assertThrows(IllegalArgumentException.class, () -> new Node(1, "h", -1));
        assertThrows(IllegalArgumentException.class, () -> new Node(1, "h", 65536));
        assertThrows(NullPointerException.class, () -> new Node(1, null, 9092));
        assertEquals(0, new Node(0, "h", 0).port());
        assertEquals(65535, new Node(0, "h", 65535).port());
    }

    @Test
    void toStringNamesIdAddressAndRack() {
        assertEquals("3@h:9092 (rack r)", new Node(3, "h", 9092, "r").toString());
        assertEquals("3@h:9092", new Node(3, "h", 9092).toString());
    }
}
