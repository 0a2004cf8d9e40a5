package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The child JVM's options; starting child brokers is tested in ChildProcessClusterTest. */
class ChildProcessNodeTest {
    @AfterEach
    void clearProperty() {
        System.clearProperty(ChildProcessNode.JVM_OPTIONS_PROPERTY);
    }

    @Test
    void theOptionsAreTheTestDefaultsUnlessThePropertyGivesOthers() {
        List<String> defaults = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
        assertEquals(defaults, ChildProcessNode.jvmOptions());
        System.setProperty(ChildProcessNode.JVM_OPTIONS_PROPERTY, " -Xmx1g   -XX:+UseG1GC ");
        assertEquals(List.of("-Xmx1g", "-XX:+UseG1GC"), ChildProcessNode.jvmOptions());
        System.setProperty(ChildProcessNode.JVM_OPTIONS_PROPERTY, "");
        assertEquals(defaults, ChildProcessNode.jvmOptions());
    }
}
