package dev.kmeta.testkit;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link ApiDumpFile}'s diff (what a reviewer reads when the API and its dump differ) and {@link UnitNames}' split of
 * names into words.
 */
class ApiDumpFileTest {
    @Test
    void aNewMemberIsOneAddedLineWithItsContext() {
        List<String> file = List.of("class A", "  a()", "  b()", "  c()", "  d()", "", "class B", "  x()");
        List<String> code = List.of("class A", "  a()", "  b()", "  c()", "  d()", "", "class B", "  w()", "  x()");
        assertEquals(List.of("--- f", "+++ f (from the code)", "@@ -5,4 +5,5 @@", "   d()", " ", " class B",
                "+  w()", "   x()"), ApiDumpFile.diff(file, code, "f"));
    }

    @Test
    void aRenameIsARemovedAndAnAddedLine() {
        assertEquals(List.of("--- f", "+++ f (from the code)", "@@ -1,2 +1,2 @@", " class A", "-  old()", "+  new()"),
                ApiDumpFile.diff(List.of("class A", "  old()"), List.of("class A", "  new()"), "f"));
    }

    @Test
    void equalDumpsHaveNoDiff() {
        assertEquals(List.of(), ApiDumpFile.diff(List.of("a"), List.of("a"), "f"));
    }

    @Test
    void namesSplitIntoWords() {
        assertEquals(List.of("Get", "Request", "Latency", "Total", "Ms"), UnitNames.words("getRequestLatencyTotalMs"));
        assertEquals(List.of("Max", "Block", "Ms"), UnitNames.words("MAX_BLOCK_MS"));
    }
}
