package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The child JVM's heap option; starting child brokers is tested in ChildProcessClusterTest. */
class ChildProcessNodeTest {
    @AfterEach
    void clearProperty() {
        System.clearProperty(ChildProcessNode.HEAP_PROPERTY);
    }

    @Test
    void theHeapIs256MbUnlessThePropertySaysOtherwise() {
        assertEquals("-Xmx256m", ChildProcessNode.maxHeapOption());
        System.setProperty(ChildProcessNode.HEAP_PROPERTY, " 1g ");
        assertEquals("-Xmx1g", ChildProcessNode.maxHeapOption());
        System.setProperty(ChildProcessNode.HEAP_PROPERTY, "");
        assertEquals("-Xmx256m", ChildProcessNode.maxHeapOption());
    }
}
