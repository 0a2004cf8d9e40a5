package dev.kmeta.metadata.internal;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rule of the manager's rooms (issue 25): each room reaches the shared state through a narrow object with
 * methods, never through {@link ManagerState}'s fields. So {@code ManagerState} and its two faces have only private
 * fields; no class of the package but {@code ManagerState}'s own nest holds a {@code ManagerState} (or the
 * {@link MetadataManager} that extends it), and the faces lead no way back to it; the sender's writers hold the
 * publisher, the readers the view, and none of them the other face.
 *
 * <p>Plain reflection over the package's compiled classes; the class names of the faces are strings so that this
 * test compiles, and fails, against a {@code ManagerState} without them.
 */
class ManagerStateRoomsTest {
    private static final String PACKAGE = ManagerState.class.getPackageName();
    private static final String PUBLISHER = PACKAGE + ".ManagerState$Publisher";
    private static final String VIEW = PACKAGE + ".ManagerState$View";

    /** Which face each room holds: the sender's writers the publisher, the application's waits and readers the view. */
    private static final Map<String, String> ROOMS = Map.of(
            "AnswerBook", PUBLISHER,
            "CommandInbox", PUBLISHER,
            "ApplicationWaits", VIEW,
            "PartitionDiagnoses", VIEW,
            "MetadataAges", VIEW);

    @Test
    void managerStateAndItsFacesExposeNoField() {
        List<String> exposed = new ArrayList<>();
        List<Class<?>> classes = new ArrayList<>(List.of(ManagerState.class, MetadataManager.class));
        for (String face : List.of(PUBLISHER, VIEW)) {
            try {
                classes.add(Class.forName(face));
            } catch (ClassNotFoundException missing) {
                exposed.add("no " + face);
            }
        }
        for (Class<?> c : classes) {
            for (Field f : c.getDeclaredFields()) {
                if (!f.isSynthetic() && !Modifier.isPrivate(f.getModifiers())) {
                    exposed.add(c.getSimpleName() + "." + f.getName());
                }
            }
        }
        assertEquals(List.of(), exposed, "fields other classes could read or write");
    }

    @Test
    void noClassOutsideManagerStateHoldsIt() throws Exception {
        Map<String, String> holders = new TreeMap<>();
        for (Class<?> c : packageClasses()) {
            if (c == ManagerState.class || c.getNestHost() == ManagerState.class) {
                continue;
            }
            for (Field f : c.getDeclaredFields()) {
                if (!f.isSynthetic() && ManagerState.class.isAssignableFrom(f.getType())) {
                    holders.put(c.getName() + "." + f.getName(), f.getType().getSimpleName());
                }
            }
        }
        assertEquals(Map.of(), holders, "fields that reach past the narrow objects");
    }

    @Test
    void eachRoomHoldsItsFaceAndNotTheOther() throws Exception {
        Set<String> faces = Set.of(PUBLISHER, VIEW);
        Map<String, Set<String>> held = new TreeMap<>();
        Map<String, Set<String>> expected = new TreeMap<>();
        for (Map.Entry<String, String> room : ROOMS.entrySet()) {
            Class<?> c = Class.forName(PACKAGE + "." + room.getKey());
            Set<String> mine = new TreeSet<>();
            for (Field f : c.getDeclaredFields()) {
                if (faces.contains(f.getType().getName())) {
                    mine.add(f.getType().getName());
                }
            }
            held.put(room.getKey(), mine);
            expected.put(room.getKey(), Set.of(room.getValue()));
        }
        assertEquals(expected.toString(), held.toString());
    }

    /** A face hands out no way back to the whole: no method returns the state, no other class can make a face. */
    @Test
    void theFacesLeadNoWayBackToManagerState() throws Exception {
        List<String> leaks = new ArrayList<>();
        for (String face : List.of(PUBLISHER, VIEW)) {
            Class<?> c = Class.forName(face);
            for (Method m : c.getDeclaredMethods()) {
                if (!m.isSynthetic() && ManagerState.class.isAssignableFrom(m.getReturnType())) {
                    leaks.add(c.getSimpleName() + "." + m.getName() + "()");
                }
            }
            for (Constructor<?> k : c.getDeclaredConstructors()) {
                if (!Modifier.isPrivate(k.getModifiers())) {
                    leaks.add(c.getSimpleName() + ": a non-private constructor");
                }
            }
        }
        assertEquals(List.of(), leaks);
    }

    /** The package's classes, read from the directory (or jar) its compiled classes are in. */
    private static List<Class<?>> packageClasses() throws URISyntaxException, ClassNotFoundException {
        URL url = ManagerState.class.getResource("ManagerState.class");
        assertNotNull(url);
        assertEquals("file", url.getProtocol(), "the package's classes are expected in a directory: " + url);
        File dir = new File(url.toURI()).getParentFile();
        String[] names = dir.list((d, n) -> n.endsWith(".class"));
        assertNotNull(names);
        Arrays.sort(names);
        List<Class<?>> classes = new ArrayList<>();
        for (String n : names) {
            classes.add(Class.forName(PACKAGE + "." + n.substring(0, n.length() - ".class".length()), false,
                    ManagerState.class.getClassLoader()));
        }
        assertTrue(classes.size() > 20, "found " + classes.size() + " classes in " + dir);
        assertFalse(classes.stream().noneMatch(c -> c == AnswerBook.class), "rooms missing from " + dir);
        return classes;
    }
}
