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
 * document line it starts on, so a compile error is reported at the document's line. The examples of public classes'
 * docs ({@code <pre>{@code ...}</pre>}) compile the same way ({@link #compileClassDocExamples}).
 *
 * <p>Stateless; thread-safe.
 */
public final class JavaSnippets {
    private static final Pattern LINE = Pattern.compile("Line(\\d+)\\.java$");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "(?m)^public (?:(?:final|abstract|sealed|non-sealed) )*(?:class|interface|record|enum|@interface) ");
    private static final Pattern PRE_CODE = Pattern.compile("<pre>\\{@code[ \\t]*\\R(.*?)\\}</pre>", Pattern.DOTALL);
    private static final Pattern IMPORT = Pattern.compile("(?m)^import [\\w.*]+;|^import static [\\w.*]+;");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
    /** A class-doc example's given: {@code Type name = ...;} (a comment may follow), e.g. "your producer config". */
    private static final Pattern GIVEN = Pattern.compile("^(\\s*)([\\w.<>\\[\\], ?]+ \\w+) = \\.\\.\\.;(.*)$");

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

    /**
     * One {@code <pre>{@code ...}</pre>} example of a public class's doc comment (the comment right before the
     * top-level {@code public} type), javadoc's {@code &#64;} and friends unescaped.
     *
     * @param file      the source file
     * @param firstLine the file line the example's code starts on
     * @param code      the code, without the comment's leading {@code *}
     */
    public record ClassDocExample(Path file, int firstLine, String code) {
    }

    /** The examples of the class docs of every public top-level type under {@code sourceRoot}, by file. */
    public static List<ClassDocExample> classDocExamples(Path sourceRoot) throws IOException {
        List<ClassDocExample> examples = new ArrayList<>();
        List<Path> files;
        try (var walk = Files.walk(sourceRoot)) {
            files = walk.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
        for (Path file : files) {
            String source = Files.readString(file, StandardCharsets.UTF_8);
            Matcher type = PUBLIC_TYPE.matcher(source);
            if (!type.find()) {
                continue;
            }
            int docStart = source.lastIndexOf("/**", type.start());
            int docEnd = docStart < 0 ? -1 : source.indexOf("*/", docStart);
            if (docStart < 0 || docEnd > type.start()) {
                continue;
            }
            Matcher pre = PRE_CODE.matcher(source.substring(0, docEnd)).region(docStart, docEnd);
            while (pre.find()) {
                int firstLine = 1 + (int) source.substring(0, pre.start(1)).chars().filter(c -> c == '\n').count();
                String code = pre.group(1).replaceAll("(?m)^[ \\t]*\\*(?: |$)", "").replace("&#64;", "@")
                        .replace("&#42;", "*").replace("&#47;", "/").replace("&lt;", "<").replace("&gt;", ">")
                        .replace("&amp;", "&");
                examples.add(new ClassDocExample(file, firstLine, code));
            }
        }
        return examples;
    }

    /**
     * Compiles every class-doc example under {@code sourceRoot} ({@link #classDocExamples}) against the test class
     * path: each as the body of a method of a class in the documented class's package, with that file's imports and
     * the example's own {@code import} lines (first, as in the README), and each line {@code Type name = ...;} (the
     * reader's own value: "your producer config") a declaration the compiler accepts. Compiled, not run.
     *
     * @return the examples compiled
     * @throws AssertionError naming each error at its source file and line, when one does not compile
     */
    public static List<ClassDocExample> compileClassDocExamples(Path sourceRoot) throws IOException {
        List<ClassDocExample> examples = classDocExamples(sourceRoot);
        Path out = Files.createTempDirectory("class-doc-examples");
        for (ClassDocExample e : examples) {
            String source = Files.readString(e.file(), StandardCharsets.UTF_8);
            Matcher pkg = PACKAGE.matcher(source);
            StringBuilder head = new StringBuilder(pkg.find() ? "package " + pkg.group(1) + "; " : "");
            Matcher imports = IMPORT.matcher(source.substring(0, Math.max(0, source.indexOf("/**"))));
            while (imports.find()) {
                head.append(imports.group()).append(' ');
            }
            String simpleName = e.file().getFileName().toString().replace(".java", "");
            // The class is named after the file line before the example's first line: javac's line 2 is the code's 1.
            String className = simpleName + "DocExampleLine" + (e.firstLine() - 1);
            StringBuilder body = new StringBuilder();
            for (String line : e.code().split("\\R", -1)) {
                if (line.trim().startsWith("import ")) {
                    head.append(line.trim()).append(' ');
                    line = "";
                }
                Matcher given = GIVEN.matcher(line);
                if (given.matches()) {
                    line = given.group(1) + given.group(2) + " = given();" + given.group(3);
                }
                body.append(line).append('\n');
            }
            String java = head + "class " + className + " { static <T> T given() { return null; } "
                    + "static void example() throws Exception {\n" + body + "}}\n";
            compile(List.of(source(className, java)), out, sourceRoot.toAbsolutePath().normalize()
                    .relativize(e.file().toAbsolutePath().normalize()).toString());
        }
        return examples;
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
