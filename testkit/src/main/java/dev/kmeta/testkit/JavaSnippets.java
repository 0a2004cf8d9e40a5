package dev.kmeta.testkit;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Wraps and compiles the Java snippets of a Markdown document (the README's examples) against the test class path, so that a
 * test can run them and they cannot drift from the API. A snippet class is named {@code ...Line<N>} after the
 * document line it starts on, so a compile error is reported at the document's line.
 *
 * <p>Stateless; thread-safe.
 */
public final class JavaSnippets {
    private static final Pattern LINE = Pattern.compile("Line(\\d+)\\.java$");

    private JavaSnippets() {
    }

    /** A snippet made a class by {@link #wrap}: its source, and whether the placeholder line was found. */
    public record Wrapped(String java, boolean placeholderFound) {
    }

    /**
     * A snippet as a class {@code className}: its imports on top, the rest the body of
     * {@code public static void run() throws Exception}, and a line matching {@code placeholder} after the imports
     * replaced by {@code replacement} applied to the placeholder's first group (the indentation). Line for line
     * (imports stay on their lines, the class header shares the last import's line), so that javac's line numbers map
     * back to the document by adding the snippet's first line - 1.
     */
    public static Wrapped wrap(String className, String code, Pattern placeholder,
                               UnaryOperator<String> replacement) {
        String[] lines = code.split("\\R", -1);
        int lastImport = -1;
        for (int i = 0; i < lines.length; i++) {
            String t = lines[i].trim();
            if (t.startsWith("import ")) {
                lastImport = i;
            } else if (!t.isEmpty() && !t.startsWith("//")) {
                break;
            }
        }
        String header = "public class " + className + " { public static void run() throws Exception { ";
        StringBuilder java = new StringBuilder();
        boolean found = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            Matcher p = placeholder.matcher(line);
            if (i > lastImport && p.matches()) {
                line = replacement.apply(p.group(1));
                found = true;
            }
            if (lastImport < 0 && i == 0) {
                java.append(header);              // no import: the class opens on the first line
            }
            java.append(line);
            if (i == lastImport) {
                java.append(' ').append(header);  // the class opens on the last import's line
            }
            java.append('\n');
        }
        return new Wrapped(java.append("}}\n").toString(), found);
    }

    /** A source file in memory, for {@link #compile}. */
    public static JavaFileObject source(String className, String code) {
        return new SimpleJavaFileObject(URI.create("string:///" + className + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return code;
            }
        };
    }

    /**
     * Compiles {@code sources} into {@code out} (Java 17, lint warnings as errors).
     *
     * @param what the document, for the message
     * @throws AssertionError naming each error at its document line, when they do not compile
     */
    public static void compile(List<JavaFileObject> sources, Path out, String what) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new AssertionError("no system Java compiler (running on a JRE?)");
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            List<String> options = List.of("-classpath", classPath(), "-d", out.toString(), "-proc:none",
                    "--release", "17", "-Xlint:deprecation,unchecked,rawtypes,removal", "-Werror");
            if (!javac.getTask(null, files, diagnostics, options, null, sources).call()) {
                StringBuilder why = new StringBuilder(what + " snippets do not compile:\n");
                for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                    String name = d.getSource() == null ? "?" : d.getSource().getName();
                    Matcher line = LINE.matcher(name);
                    long documentLine = line.find() ? Long.parseLong(line.group(1)) + d.getLineNumber() - 1 : -1;
                    why.append("  ").append(what).append(':').append(documentLine).append(": ").append(d.getKind())
                            .append(": ").append(d.getMessage(Locale.ROOT)).append('\n');
                }
                throw new AssertionError(why.toString());
            }
        }
    }

    /** The test class path; expanded when surefire runs the tests from a manifest-only jar. */
    public static String classPath() throws IOException {
        String cp = System.getProperty("java.class.path");
        String[] entries = cp.split(File.pathSeparator);
        if (entries.length == 1 && entries[0].endsWith(".jar")) {
            try (JarFile jar = new JarFile(entries[0])) {
                Manifest manifest = jar.getManifest();
                String manifestCp = manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
                if (manifestCp != null) {
                    List<String> expanded = new ArrayList<>();
                    for (String url : manifestCp.trim().split("\\s+")) {
                        expanded.add(Path.of(URI.create(new File(entries[0]).toURI().resolve(url).toString()))
                                .toString());
                    }
                    return String.join(File.pathSeparator, expanded);
                }
            }
        }
        return cp;
    }

    /**
     * README.md of the repository: the first above the working directory (the module's basedir under Maven) that has
     * {@code module}/pom.xml beside it.
     */
    public static Path readme(String module) {
        String basedir = System.getProperty("basedir", System.getProperty("user.dir"));
        for (Path dir = Path.of(basedir).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path readme = dir.resolve("README.md");
            if (Files.isRegularFile(readme) && Files.isRegularFile(dir.resolve(module).resolve("pom.xml"))) {
                return readme;
            }
        }
        throw new AssertionError("README.md of the repository not found above " + basedir);
    }
}
