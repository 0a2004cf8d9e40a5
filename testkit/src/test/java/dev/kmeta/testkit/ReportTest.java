package dev.kmeta.testkit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TestClients#report}: a measured number goes to the module's {@code target/measured.txt}, not the build log. */
class ReportTest {
    @Test
    void aMeasuredNumberIsAppendedToTargetMeasuredTxt() throws IOException {
        String marker = UUID.randomUUID().toString();
        TestClients.report("report test %s took %d ms", marker, 42);
        String kept = Files.readString(Path.of("target", "measured.txt"));
        assertTrue(kept.contains("[measured] report test " + marker + " took 42 ms"), "kept in target/measured.txt");
    }
}
