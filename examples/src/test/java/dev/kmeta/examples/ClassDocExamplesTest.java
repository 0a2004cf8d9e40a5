package dev.kmeta.examples;

import dev.kmeta.testkit.JavaSnippets;
import dev.kmeta.testkit.JavaSnippets.ClassDocExample;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The examples in this module's public class docs ({@code <pre>{@code ...}</pre>}) compile against the test class
 * path, as the README's snippets do ({@link JavaSnippets#compileClassDocExamples}): the API they show cannot drift.
 */
class ClassDocExamplesTest {
    @Test
    void classDocExamplesCompile() throws Exception {
        List<ClassDocExample> compiled = JavaSnippets.compileClassDocExamples(Path.of("src/main/java"));
        assertFalse(compiled.isEmpty(), "no class-doc example found under src/main/java");
    }
}
