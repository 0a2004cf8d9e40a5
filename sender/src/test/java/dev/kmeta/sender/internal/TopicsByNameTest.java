package dev.kmeta.sender.internal;

import dev.kmeta.cluster.TopicMetadata;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TopicsByName}: a map like a {@code LinkedHashMap} of the same puts, colliding hashes included. */
class TopicsByNameTest {
    @Test
    void behavesAsALinkedHashMapOfTheSameTopics() {
        for (int n : new int[] {0, 1, 2, 3, 17, 1000}) {
            TopicsByName compact = new TopicsByName(n);
            Map<String, TopicMetadata> expected = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = (i % 2 == 0 ? "Aa" : "BB") + i / 2; // "Aa1" and "BB1" share a hash code
                TopicMetadata t = TopicMetadata.of(name, List.of());
                assertTrue(compact.add(name, t));
                expected.put(name, t);
                assertFalse(compact.add(name, TopicMetadata.of(name, List.of())), "a name once only");
            }
            assertEquals(expected, compact, "n=" + n);
            assertEquals(expected.hashCode(), compact.hashCode());
            assertEquals(new ArrayList<>(expected.keySet()), new ArrayList<>(compact.keySet()), "answer order");
            assertEquals(new ArrayList<>(expected.values()), new ArrayList<>(compact.values()));
            for (String name : expected.keySet()) {
                assertSame(expected.get(name), compact.get(name));
                assertTrue(compact.containsKey(name));
            }
            assertNull(compact.get("missing"));
            assertNull(compact.get(42));
            assertFalse(compact.containsKey("missing"));
            assertEquals(n, compact.size());
        }
    }

    @Test
    void refusesMoreThanItsRoom() {
        TopicsByName one = new TopicsByName(1);
        one.add("a", TopicMetadata.of("a", List.of()));
        assertThrows(IllegalStateException.class, () -> one.add("b", TopicMetadata.of("b", List.of())));
    }
}
