package dev.kmeta.compat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a compiled class refers to in another package, read from its constant pool: classes, fields and methods
 * (owner, name, descriptor), and every class named in a descriptor or signature. The JVM links exactly these when the
 * code runs, so a reference that does not resolve in a kafka-clients version is a {@code NoClassDefFoundError} or
 * {@code NoSuchMethodError} waiting on that version.
 */
final class ClassRefs {
    /** One reference: kind is "class", "field" or "method"; name and descriptor are empty for classes. */
    record Ref(String kind, String owner, String name, String descriptor, String from) {
        @Override
        public String toString() {
            return kind.equals("class") ? "class " + owner.replace('/', '.') + " (from " + from + ")"
                    : kind + " " + owner.replace('/', '.') + "." + name + descriptor + " (from " + from + ")";
        }
    }

    private static final Pattern TYPE_IN_DESCRIPTOR = Pattern.compile("L([a-zA-Z0-9_/$]+)[;<]");

    private ClassRefs() {
    }

    /** Every reference whose owner's binary name starts with {@code prefix} (e.g. "org/apache/kafka/"), of every
     *  class file under a directory or in a jar. */
    static Set<Ref> under(Path classesDir, String prefix) throws IOException {
        if (Files.isRegularFile(classesDir)) { // a module's jar (after package, as in ./mvnw verify)
            try (FileSystem jar = FileSystems.newFileSystem(classesDir)) {
                return under(jar.getPath("/"), prefix);
            }
        }
        Set<Ref> refs = new LinkedHashSet<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classesDir)) {
            files = walk.filter(p -> p.toString().endsWith(".class")).sorted().collect(Collectors.toList());
        }
        for (Path file : files) {
            String from = classesDir.relativize(file).toString().replace(".class", "").replace('/', '.');
            if (from.startsWith("META-INF")) {
                continue; // e.g. a multi-release or module descriptor: not kmeta's code
            }
            try (InputStream in = Files.newInputStream(file)) {
                read(new DataInputStream(in), from, prefix, refs);
            }
        }
        return refs;
    }

    private static void read(DataInputStream in, String from, String prefix, Set<Ref> out) throws IOException {
        ConstantPool constants = ConstantPool.read(in, from);
        int count = constants.count();
        int[] tags = constants.tags();
        String[] pool = constants.utf();
        int[][] links = constants.links();
        boolean[] literal = new boolean[count]; // the text of a String constant: not a link (e.g. a descriptor
        for (int i = 1; i < count; i++) {       // spelled in a string, which reflection resolves and checks)
            if (tags[i] == 8) {
                literal[links[i][0]] = true;
            }
        }
        for (int i = 1; i < count; i++) {
            if (tags[i] == 1 && literal[i]) {
                continue;
            }
            switch (tags[i]) {
                case 7 -> {
                    String name = pool[links[i][0]];
                    String element = name.startsWith("[") ? elementClass(name) : name;
                    if (element != null && element.startsWith(prefix)) {
                        out.add(new Ref("class", element, "", "", from));
                    }
                }
                case 9, 10, 11 -> {
                    String owner = pool[links[links[i][0]][0]];
                    int[] nameAndType = links[links[i][1]];
                    if (owner.startsWith(prefix)) {
                        out.add(new Ref(tags[i] == 9 ? "field" : "method", owner, pool[nameAndType[0]],
                                pool[nameAndType[1]], from));
                    }
                }
                case 1 -> {
                    Matcher m = TYPE_IN_DESCRIPTOR.matcher(pool[i]);
                    while (m.find()) {
                        if (m.group(1).startsWith(prefix)) {
                            out.add(new Ref("class", m.group(1), "", "", from));
                        }
                    }
                }
                default -> {
                    // nothing to check
                }
            }
        }
    }

    private static String elementClass(String arrayDescriptor) {
        String e = arrayDescriptor.replaceFirst("^\\[+", "");
        return e.startsWith("L") && e.endsWith(";") ? e.substring(1, e.length() - 1) : null;
    }
}
