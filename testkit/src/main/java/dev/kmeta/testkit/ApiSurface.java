package dev.kmeta.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A check of one module's public API: every public signature in a package its {@code module-info} exports to
 * everyone (types' supertypes, public and protected constructors, methods, fields, with their generic arguments and
 * thrown types) may name only the JDK's types, types of packages that kmeta's modules export to everyone, and
 * Kafka's public API ({@code org.apache.kafka.common}, {@code .common.errors}, {@code .common.config},
 * {@code .common.serialization}, {@code .common.header}, {@code .clients.producer}, {@code .clients.consumer},
 * {@code .clients.admin}), not {@code internal} packages or kafka-clients' internals ({@code .clients.producer.internals},
 * {@code .common.utils}, {@code .common.requests}, {@code .clients.MetadataUpdater}...). An unqualified export of an
 * {@code internal} package is a leak too. A module without a descriptor is taken as exporting every package without
 * an {@code internal} segment under {@code dev.kmeta} (kmeta's convention).
 *
 * <p>Reads the classes where they are (a directory or a jar on the class path), without the module system; for a
 * test in {@code verify}. Not thread-safe: one thread uses an instance.
 */
public final class ApiSurface {
    private static final Set<String> KAFKA_PUBLIC = Set.of("org.apache.kafka.common", "org.apache.kafka.common.errors",
            "org.apache.kafka.common.config", "org.apache.kafka.common.serialization", "org.apache.kafka.common.header",
            "org.apache.kafka.clients.producer", "org.apache.kafka.clients.consumer", "org.apache.kafka.clients.admin");

    private final Class<?> anchor;
    private final Map<Path, Set<String>> exportsByLocation = new HashMap<>();
    private final Map<String, Set<String>> allowed = new HashMap<>();

    private ApiSurface(Class<?> anchor) {
        this.anchor = anchor;
    }

    /** The API of the module (directory or jar) that holds {@code anchor}. */
    public static ApiSurface of(Class<?> anchor) {
        return new ApiSurface(anchor);
    }

    /** Lets {@code owner}'s own signatures name {@code types} (a deliberate exception, e.g. driven mode's). */
    public ApiSurface allowing(Class<?> owner, Class<?>... types) {
        Set<String> names = allowed.computeIfAbsent(owner.getName(), k -> new HashSet<>());
        for (Class<?> t : types) {
            names.add(t.getName());
        }
        return this;
    }

    /** The module's name from its descriptor, or null when it has none. */
    public String moduleName() {
        ModuleDescriptor d = descriptor(location(anchor));
        return d == null ? null : d.name();
    }

    /** The packages the module exports to everyone, sorted. */
    public Set<String> exportedPackages() {
        return new TreeSet<>(exports(location(anchor)));
    }

    /**
     * The module's exported API as text, one line per type and member, sorted ({@link ApiDump}): what the checked-in
     * {@code api/<module>.api} file holds.
     */
    public List<String> dump() {
        return ApiDump.render(apiClasses(location(anchor)));
    }

    /** One line per exported numeric member whose name breaks kmeta's unit rule ({@link UnitNames}). */
    public List<String> unitNameViolations() {
        return UnitNames.violations(apiClasses(location(anchor)));
    }

    /** The public (and subclassable protected) classes of the packages the module exports to everyone. */
    public List<Class<?>> classes() {
        return apiClasses(location(anchor));
    }

    /** Whether {@code modifiers} make a member of {@code owner} part of the API (public, or protected in a class one
     * may extend). */
    public static boolean isVisible(Class<?> owner, int modifiers) {
        return visible(owner, modifiers);
    }

    /** One line per leak, e.g. {@code dev.kmeta.sender.KafkaMetadata.counters(): dev.kmeta.metadata.internal.Counters}. */
    public List<String> leaks() {
        Path where = location(anchor);
        List<String> leaks = new ArrayList<>();
        for (String p : exports(where)) {
            if (isInternal(p)) {
                leaks.add("module exports " + p + " to everyone");
            }
        }
        for (Class<?> c : apiClasses(where)) {
            try {
                leaks.addAll(leaksOf(c));
            } catch (LinkageError e) {
                leaks.add(c.getName() + ": cannot read its signatures: " + e);
            }
        }
        return leaks;
    }

    private List<String> leaksOf(Class<?> c) {
        List<String> leaks = new ArrayList<>();
        check(leaks, c, c.getName() + " extends", c.getGenericSuperclass());
        for (Type t : c.getGenericInterfaces()) {
            check(leaks, c, c.getName() + " implements", t);
        }
        for (TypeVariable<?> v : c.getTypeParameters()) {
            checkAll(leaks, c, c.getName() + "<" + v.getName() + ">", v.getBounds());
        }
        for (Field f : c.getDeclaredFields()) {
            if (visible(c, f.getModifiers()) && !f.isSynthetic()) {
                check(leaks, c, c.getName() + "." + f.getName(), f.getGenericType());
            }
        }
        for (Constructor<?> k : c.getDeclaredConstructors()) {
            checkExecutable(leaks, c, k, c.getName() + ".<init>");
        }
        for (Method m : c.getDeclaredMethods()) {
            if (!m.isBridge()) {
                checkExecutable(leaks, c, m, c.getName() + "." + m.getName() + "()");
                if (visible(c, m.getModifiers()) && !m.isSynthetic()) {
                    check(leaks, c, c.getName() + "." + m.getName() + "()", m.getGenericReturnType());
                }
            }
        }
        return leaks;
    }

    private void checkExecutable(List<String> leaks, Class<?> owner, Executable e, String where) {
        if (!visible(owner, e.getModifiers()) || e.isSynthetic()) {
            return;
        }
        checkAll(leaks, owner, where, e.getGenericParameterTypes());
        checkAll(leaks, owner, where + " throws", e.getGenericExceptionTypes());
        for (TypeVariable<?> v : e.getTypeParameters()) {
            checkAll(leaks, owner, where + "<" + v.getName() + ">", v.getBounds());
        }
    }

    static boolean visible(Class<?> owner, int modifiers) {
        return Modifier.isPublic(modifiers) || (Modifier.isProtected(modifiers) && !Modifier.isFinal(owner.getModifiers())
                && !owner.isEnum());
    }

    private void checkAll(List<String> leaks, Class<?> owner, String where, Type[] types) {
        for (Type t : types) {
            check(leaks, owner, where, t);
        }
    }

    private void check(List<String> leaks, Class<?> owner, String where, Type type) {
        for (Class<?> named : rawTypes(type, new ArrayList<>())) {
            if (!isApi(named) && !allowed.getOrDefault(owner.getName(), Set.of()).contains(named.getName())) {
                leaks.add(where + ": " + named.getName());
            }
        }
    }

    private static List<Class<?>> rawTypes(Type type, List<Class<?>> into) {
        if (type instanceof Class<?>) {
            Class<?> c = (Class<?>) type;
            into.add(c.isArray() ? c.getComponentType() : c);
        } else if (type instanceof ParameterizedType) {
            ParameterizedType p = (ParameterizedType) type;
            rawTypes(p.getRawType(), into);
            for (Type a : p.getActualTypeArguments()) {
                rawTypes(a, into);
            }
        } else if (type instanceof GenericArrayType) {
            rawTypes(((GenericArrayType) type).getGenericComponentType(), into);
        } else if (type instanceof WildcardType) {
            WildcardType w = (WildcardType) type;
            for (Type b : w.getUpperBounds()) {
                rawTypes(b, into);
            }
            for (Type b : w.getLowerBounds()) {
                rawTypes(b, into);
            }
        }
        return into; // a type variable's bounds are checked where it is declared
    }

    private boolean isApi(Class<?> c) {
        while (c.isArray()) {
            c = c.getComponentType();
        }
        if (c.isPrimitive()) {
            return true;
        }
        String p = c.getPackageName();
        if (p.startsWith("java.") || p.startsWith("javax.")) {
            return true;
        }
        if (p.startsWith("org.apache.kafka.")) {
            return KAFKA_PUBLIC.contains(p);
        }
        if (p.startsWith("dev.kmeta.")) {
            Path where = location(c);
            return where != null && exports(where).contains(p);
        }
        return false;
    }

    private static boolean isInternal(String pkg) {
        return pkg.equals("internal") || pkg.endsWith(".internal") || pkg.contains(".internal.")
                || pkg.endsWith(".internals");
    }

    private Set<String> exports(Path where) {
        return exportsByLocation.computeIfAbsent(where, w -> {
            ModuleDescriptor d = descriptor(w);
            Set<String> out = new HashSet<>();
            if (d == null) {
                packages(w).stream().filter(p -> p.startsWith("dev.kmeta.") && !isInternal(p)).forEach(out::add);
            } else {
                d.exports().stream().filter(e -> !e.isQualified()).forEach(e -> out.add(e.source()));
            }
            return out;
        });
    }

    private List<Class<?>> apiClasses(Path where) {
        Set<String> exported = exports(where);
        List<Class<?>> out = new ArrayList<>();
        for (String name : classNames(where)) {
            int dot = name.lastIndexOf('.');
            if (dot < 0 || !exported.contains(name.substring(0, dot))) {
                continue;
            }
            Class<?> c = load(name);
            if (c != null && isApiClass(c)) {
                out.add(c);
            }
        }
        return out;
    }

    private static boolean isApiClass(Class<?> c) {
        if (c.isAnonymousClass() || c.isLocalClass() || c.isSynthetic()) {
            return false;
        }
        for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
            Class<?> outer = k.getDeclaringClass();
            boolean reachable = Modifier.isPublic(k.getModifiers()) || (outer != null
                    && Modifier.isProtected(k.getModifiers()) && !Modifier.isFinal(outer.getModifiers()));
            if (!reachable) {
                return false;
            }
        }
        return true;
    }

    private Class<?> load(String name) {
        try {
            return Class.forName(name, false, anchor.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    private static Path location(Class<?> c) {
        var source = c.getProtectionDomain().getCodeSource();
        if (source == null) {
            return null;
        }
        try {
            return Path.of(source.getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ModuleDescriptor descriptor(Path where) {
        return read(where, root -> {
            Path info = root.resolve("module-info.class");
            if (!Files.exists(info)) {
                return null;
            }
            try (InputStream in = Files.newInputStream(info)) {
                return ModuleDescriptor.read(in);
            }
        });
    }

    private static Set<String> packages(Path where) {
        Set<String> out = new HashSet<>();
        for (String name : classNames(where)) {
            int dot = name.lastIndexOf('.');
            if (dot > 0) {
                out.add(name.substring(0, dot));
            }
        }
        return out;
    }

    private static List<String> classNames(Path where) {
        return read(where, root -> {
            try (Stream<Path> files = Files.walk(root)) {
                return files.map(root::relativize).map(Path::toString).filter(n -> n.endsWith(".class"))
                        .filter(n -> !n.equals("module-info.class") && !n.startsWith("META-INF"))
                        .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.')
                                .replace('\\', '.'))
                        .toList();
            }
        });
    }

    private interface Reader<T> {
        T read(Path root) throws IOException;
    }

    private static <T> T read(Path where, Reader<T> reader) {
        try {
            if (Files.isDirectory(where)) {
                return reader.read(where);
            }
            try (FileSystem jar = FileSystems.newFileSystem(where)) {
                return reader.read(jar.getPath("/"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
