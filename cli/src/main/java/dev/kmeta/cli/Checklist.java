package dev.kmeta.cli;

import java.io.PrintWriter;

/**
 * The doctor's report: one line per check as soon as it is decided ({@code OK}, {@code FAIL} with a one-line fix
 * under it, or {@code SKIP} when an earlier failure makes the check meaningless), then a summary. Not thread-safe.
 */
final class Checklist {
    /** A check's outcome. */
    enum Status { OK, FAIL, SKIP }

    private final PrintWriter out;
    private int passed;
    private int failed;
    private int skipped;

    Checklist(PrintWriter out) {
        this.out = out;
    }

    void ok(String check, String detail) {
        passed++;
        print(Status.OK, check, detail);
    }

    void fail(String check, String detail, String fix) {
        failed++;
        print(Status.FAIL, check, detail);
        out.println("      fix: " + fix);
        out.flush();
    }

    void skip(String check, String why) {
        skipped++;
        print(Status.SKIP, check, why);
    }

    /** How many checks failed so far. */
    int failures() {
        return failed;
    }

    /** Prints the summary line. */
    void summary() {
        out.println(failed == 0 ? "healthy: " + passed + " check(s) OK" + (skipped == 0 ? "" : ", " + skipped
                + " skipped") : failed + " problem(s) found (" + passed + " OK, " + skipped + " skipped)");
        out.flush();
    }

    private void print(Status status, String check, String detail) {
        out.println(String.format("%-5s %s%s", status, check, detail == null || detail.isEmpty() ? "" : ": "
                + detail));
        out.flush();
    }
}
