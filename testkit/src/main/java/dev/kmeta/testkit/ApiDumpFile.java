package dev.kmeta.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The check that keeps a module's checked-in API dump ({@code <module>/api/<module>.api}) equal to its code: fails
 * with a unified diff (dump file {@code -}, code {@code +}) and the command that rewrites the files; with the system
 * property {@code kmeta.api.write=true} it writes the file instead. An API change thus shows in review as a change
 * of the dump, the way OkHttp's {@code apiCheck} works.
 *
 * <p>Stateless and thread-safe.
 */
public final class ApiDumpFile {
    /** The one command that rewrites every library module's dump from its code. */
    public static final String REGENERATE = "./mvnw -B -o -q -pl cluster-model,metadata,sender,kafka-producer,"
            + "micrometer,spring,streams -am verify -Dtest='ApiDumpTest' -Dsurefire.failIfNoSpecifiedTests=false "
            + "-Dkmeta.api.write=true";

    private static final int CONTEXT = 3;

    private ApiDumpFile() {
    }

    /**
     * Throws an {@link AssertionError} naming every difference between {@code api}'s dump and {@code file} (which
     * must exist); with {@code -Dkmeta.api.write=true}, writes the dump to {@code file} instead.
     */
    public static void check(ApiSurface api, Path file) {
        List<String> actual = api.dump();
        if (Boolean.getBoolean("kmeta.api.write")) {
            write(file, actual);
            return;
        }
        List<String> expected = read(file);
        if (!expected.equals(actual)) {
            throw new AssertionError("The exported API differs from " + file + " (- file, + code). If the change is"
                    + " meant, regenerate the dumps and commit them:\n  " + REGENERATE + "\n"
                    + String.join("\n", diff(expected, actual, file.toString())));
        }
    }

    /** A unified diff of {@code a} to {@code b}, {@value #CONTEXT} lines of context; empty when equal. */
    static List<String> diff(List<String> a, List<String> b, String name) {
        int[][] lcs = lcs(a, b);
        List<String> edits = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < a.size() || j < b.size()) {
            if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
                edits.add(" " + a.get(i++));
                j++;
            } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] > lcs[i + 1][j])) { // removals first
                edits.add("+" + b.get(j++));
            } else {
                edits.add("-" + a.get(i++));
            }
        }
        return hunks(edits, name);
    }

    private static int[][] lcs(List<String> a, List<String> b) {
        int[][] t = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                t[i][j] = a.get(i).equals(b.get(j)) ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
            }
        }
        return t;
    }

    private static List<String> hunks(List<String> edits, String name) {
        List<String> out = new ArrayList<>();
        int lineA = 1;
        int lineB = 1;
        int k = 0;
        while (k < edits.size()) {
            int change = nextChange(edits, k);
            if (change < 0) {
                break;
            }
            int start = Math.max(k, change - CONTEXT);
            for (int s = k; s < start; s++) {
                lineA++;
                lineB++;
            }
            int end = hunkEnd(edits, change);
            List<String> body = edits.subList(start, end);
            long inA = body.stream().filter(e -> !e.startsWith("+")).count();
            long inB = body.stream().filter(e -> !e.startsWith("-")).count();
            if (out.isEmpty()) {
                out.add("--- " + name);
                out.add("+++ " + name + " (from the code)");
            }
            out.add("@@ -" + lineA + "," + inA + " +" + lineB + "," + inB + " @@");
            out.addAll(body);
            lineA += inA;
            lineB += inB;
            k = end;
        }
        return out;
    }

    private static int nextChange(List<String> edits, int from) {
        for (int k = from; k < edits.size(); k++) {
            if (!edits.get(k).startsWith(" ")) {
                return k;
            }
        }
        return -1;
    }

    /** The end of the hunk holding the change at {@code k}: changes less than 2 * context apart join one hunk. */
    private static int hunkEnd(List<String> edits, int k) {
        int lastChange = k;
        for (int x = k; x < edits.size() && x <= lastChange + 2 * CONTEXT; x++) {
            if (!edits.get(x).startsWith(" ")) {
                lastChange = x;
            }
        }
        return Math.min(edits.size(), lastChange + CONTEXT + 1);
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new AssertionError("No API dump at " + file.toAbsolutePath() + "; create it with:\n  " + REGENERATE,
                    e);
        }
    }

    private static void write(Path file, List<String> lines) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.write(file, lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
