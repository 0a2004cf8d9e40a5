package dev.kmeta.testkit;

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A module's exported API as sorted text, in the spirit of OkHttp's {@code okhttp.api}: one line per public type
 * (modifiers, kind, generic parameters, supertypes), then one indented line per public or protected member (fields,
 * constructors, methods, with generic types and thrown types), a blank line between types. Types sort by name,
 * members by kind (fields, constructors, methods), name, then text. Names are fully qualified except
 * {@code java.lang}'s. Compiler-made members (bridges, lambdas) are left out; {@code values()}/{@code valueOf} of an
 * enum are in, as they are callable.
 *
 * <p>Stateless; {@link ApiSurface#dump()} is the entry point, {@link ApiDumpFile} compares with the checked-in file.
 */
final class ApiDump {
    private ApiDump() {
    }

    static List<String> render(List<Class<?>> classes) {
        List<Class<?>> sorted = new ArrayList<>(classes);
        sorted.sort(Comparator.comparing(ApiDump::name));
        List<String> lines = new ArrayList<>();
        for (Class<?> c : sorted) {
            if (!lines.isEmpty()) {
                lines.add("");
            }
            lines.add(header(c));
            lines.addAll(members(c));
        }
        return lines;
    }

    private static String header(Class<?> c) {
        StringBuilder b = new StringBuilder(deprecated(c.isAnnotationPresent(Deprecated.class)));
        int mods = c.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC | Modifier.FINAL
                | Modifier.ABSTRACT);
        if (c.isInterface() || c.isEnum() || c.isRecord()) {
            mods &= ~(Modifier.ABSTRACT | Modifier.FINAL | (c.getDeclaringClass() == null ? 0 : Modifier.STATIC));
        }
        b.append(Modifier.toString(mods)).append(' ').append(kind(c)).append(' ').append(name(c))
                .append(typeParameters(c.getTypeParameters()));
        Type sup = c.getGenericSuperclass();
        if (sup != null && sup != Object.class && !c.isEnum() && !c.isRecord()) {
            b.append(" extends ").append(type(sup));
        }
        Type[] ifs = c.getGenericInterfaces();
        if (ifs.length > 0) {
            b.append(c.isInterface() ? " extends " : " implements ").append(types(ifs));
        }
        return b.toString();
    }

    private static String kind(Class<?> c) {
        if (c.isAnnotation()) {
            return "@interface";
        }
        return c.isInterface() ? "interface" : c.isEnum() ? "enum" : c.isRecord() ? "record" : "class";
    }

    private static List<String> members(Class<?> c) {
        List<String[]> keyed = new ArrayList<>();
        for (Field f : c.getDeclaredFields()) {
            if (ApiSurface.visible(c, f.getModifiers()) && !f.isSynthetic()) {
                keyed.add(new String[] {"0", f.getName(), field(f)});
            }
        }
        for (Constructor<?> k : c.getDeclaredConstructors()) {
            if (ApiSurface.visible(c, k.getModifiers()) && !k.isSynthetic()) {
                keyed.add(new String[] {"1", "", executable(c, k, null)});
            }
        }
        for (Method m : c.getDeclaredMethods()) {
            if (ApiSurface.visible(c, m.getModifiers()) && !m.isSynthetic() && !m.isBridge()) {
                keyed.add(new String[] {"2", m.getName(), executable(c, m, m)});
            }
        }
        keyed.sort(Comparator.<String[], String>comparing(k -> k[0]).thenComparing(k -> k[1])
                .thenComparing(k -> k[2]));
        return keyed.stream().map(k -> "  " + k[2]).collect(Collectors.toList());
    }

    private static String field(Field f) {
        return deprecated(f.isAnnotationPresent(Deprecated.class)) + Modifier.toString(f.getModifiers()
                & (Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC | Modifier.FINAL)) + " "
                + type(f.getGenericType()) + " " + f.getName();
    }

    private static String executable(Class<?> owner, Executable e, Method m) {
        StringBuilder b = new StringBuilder(deprecated(e.isAnnotationPresent(Deprecated.class)));
        int mods = e.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC | Modifier.FINAL
                | Modifier.ABSTRACT);
        if (owner.isInterface()) {
            mods &= ~Modifier.ABSTRACT;
        }
        b.append(Modifier.toString(mods));
        if (m != null && m.isDefault()) {
            b.append(" default");
        }
        String tps = typeParameters(e.getTypeParameters());
        if (!tps.isEmpty()) {
            b.append(' ').append(tps);
        }
        if (m != null) {
            b.append(' ').append(type(m.getGenericReturnType()));
        }
        b.append(' ').append(m == null ? name(owner) : m.getName()).append('(').append(parameters(e)).append(')');
        Type[] thrown = e.getGenericExceptionTypes();
        if (thrown.length > 0) {
            b.append(" throws ").append(types(thrown));
        }
        return b.toString();
    }

    private static String parameters(Executable e) {
        Type[] ps = e.getGenericParameterTypes();
        if (ps.length != e.getParameterCount()) {
            ps = e.getParameterTypes(); // an inner class's constructor: generic types omit the outer instance
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < ps.length; i++) {
            String t = type(ps[i]);
            out.add(e.isVarArgs() && i == ps.length - 1 ? t.substring(0, t.length() - 2) + "..." : t);
        }
        return String.join(", ", out);
    }

    private static String typeParameters(TypeVariable<?>[] vars) {
        if (vars.length == 0) {
            return "";
        }
        List<String> out = new ArrayList<>();
        for (TypeVariable<?> v : vars) {
            List<Type> bounds = Arrays.stream(v.getBounds()).filter(t -> t != Object.class).toList();
            out.add(bounds.isEmpty() ? v.getName()
                    : v.getName() + " extends " + bounds.stream().map(ApiDump::type).collect(Collectors.joining(" & ")));
        }
        return "<" + String.join(", ", out) + ">";
    }

    private static String types(Type[] types) {
        return Arrays.stream(types).map(ApiDump::type).collect(Collectors.joining(", "));
    }

    static String type(Type t) {
        if (t instanceof Class<?> c) {
            return c.isArray() ? type(c.getComponentType()) + "[]" : name(c);
        }
        if (t instanceof ParameterizedType p) {
            return type(p.getRawType()) + "<" + types(p.getActualTypeArguments()) + ">";
        }
        if (t instanceof GenericArrayType g) {
            return type(g.getGenericComponentType()) + "[]";
        }
        if (t instanceof WildcardType w) {
            if (w.getLowerBounds().length > 0) {
                return "? super " + types(w.getLowerBounds());
            }
            Type[] upper = w.getUpperBounds();
            return upper.length == 0 || upper[0] == Object.class ? "?" : "? extends " + types(upper);
        }
        return t.getTypeName(); // a type variable
    }

    private static String name(Class<?> c) {
        String n = c.getCanonicalName() == null ? c.getName() : c.getCanonicalName();
        return c.getPackageName().equals("java.lang") && c.getDeclaringClass() == null ? c.getSimpleName() : n;
    }

    private static String deprecated(boolean deprecated) {
        return deprecated ? "@Deprecated " : "";
    }
}
