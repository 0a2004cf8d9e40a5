package dev.kmeta.metadata.internal;

import dev.kmeta.metadata.Diagnosis.Cause;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * docs/design.md's diagnosis table lists {@link Diagnoser}'s rules in Diagnoser's order and numbering: row N names the
 * causes of the N-th item of Diagnoser's ordered list (its class doc, which its {@code decide} follows, first match
 * wins). Text in parentheses is a remark, not a rule's cause ("before TOPIC_NOT_FOUND").
 */
class DiagnoserRulesDocTest {
    private static final Path DIAGNOSER = Path.of("src/main/java/dev/kmeta/metadata/internal/Diagnoser.java");
    private static final Path DESIGN = Path.of("..", "docs", "design.md");
    private static final Pattern ITEM = Pattern.compile("<li>(.*?)</li>", Pattern.DOTALL);
    private static final Pattern ROW = Pattern.compile("(?m)^\\| (\\d+) \\| ([^|]+) \\|");

    @Test
    void designDocListsTheRulesInDiagnosersOrderAndNumbering() throws IOException {
        String source = Files.readString(DIAGNOSER);
        String list = source.substring(source.indexOf("<ol>"), source.indexOf("</ol>"));
        List<String> rules = new ArrayList<>();
        Matcher item = ITEM.matcher(list);
        while (item.find()) {
            rules.add(causes(item.group(1).replaceAll("(?m)^\\s*\\*", " ")));
        }
        assertFalse(rules.isEmpty(), "no <ol> of rules in " + DIAGNOSER);

        String design = Files.readString(DESIGN);
        int section = design.indexOf("## Diagnosis: every timeout names its cause");
        String table = design.substring(section, design.indexOf("\n## ", section + 1));
        List<String> rows = new ArrayList<>();
        Matcher row = ROW.matcher(table);
        for (int n = 1; row.find(); n++) {
            assertEquals(String.valueOf(n), row.group(1), "docs/design.md's diagnosis rows are numbered 1, 2, 3...: "
                    + "row " + n + " says " + row.group(1));
            rows.add(causes(row.group(2)));
        }
        assertEquals(numbered(rules), numbered(rows), "docs/design.md's diagnosis table (rule: causes) against "
                + "Diagnoser's ordered list");
    }

    /** The cause names in {@code text} outside parentheses, sorted, e.g. "BOOTSTRAP_DNS BOOTSTRAP_UNREACHABLE". */
    private static String causes(String text) {
        String outside = text;
        for (String before = ""; !before.equals(outside); ) {
            before = outside;
            outside = outside.replaceAll("\\([^()]*\\)", "");
        }
        TreeSet<String> found = new TreeSet<>();
        for (Cause c : Cause.values()) {
            if (Pattern.compile("\\b" + c.name() + "\\b").matcher(outside).find()) {
                found.add(c.name());
            }
        }
        return String.join(" ", found);
    }

    private static String numbered(List<String> rules) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < rules.size(); i++) {
            s.append(i + 1).append(": ").append(rules.get(i)).append('\n');
        }
        return s.toString();
    }
}
