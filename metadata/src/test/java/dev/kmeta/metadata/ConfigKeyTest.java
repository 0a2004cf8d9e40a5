package dev.kmeta.metadata;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The key table ({@link ConfigKey#ALL}) is what validation, {@code toString} and docs/configuration.md follow: the
 * doc's row of every key is the row the table renders, and each numeric key's default and range are the ones
 * {@link MetadataConfig} applies.
 */
class ConfigKeyTest {
    /** A table row of the doc whose first cell is a key in backticks: {@code | `name` | ...}. */
    private static final Pattern KEY_ROW = Pattern.compile("^\\| `([a-z0-9.]+)` \\|.*");

    @Test
    void everyKeyHasExactlyTheRowTheTableRendersInConfigurationMd() throws IOException {
        List<String> doc = Files.readAllLines(configurationMd());
        List<String> problems = new ArrayList<>();
        for (ConfigKey key : ConfigKey.ALL) {
            List<String> rows = rowsOf(doc, key.name);
            if (rows.size() != 1 || !rows.get(0).equals(key.docRow())) {
                problems.add(key.name + ": the table renders\n  " + key.docRow() + "\nbut docs/configuration.md has "
                        + rows);
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    @Test
    void configurationMdDocumentsNoMetadataKeyTheTableLacks() throws IOException {
        Set<String> known = new HashSet<>(ConfigKey.names());
        for (String line : Files.readAllLines(configurationMd())) {
            Matcher m = KEY_ROW.matcher(line);
            if (m.matches() && m.group(1).startsWith("kmeta.metadata.")) {
                assertTrue(known.contains(m.group(1)), "docs/configuration.md documents " + m.group(1)
                        + ", which MetadataConfig does not read");
            }
        }
    }

    @Test
    void everyNumericKeyUsesTheTablesDefaultAndRange() {
        MetadataConfig defaults = MetadataConfig.from(Map.of());
        for (ConfigKey key : ConfigKey.ALL) {
            if (key.type != ConfigKey.Type.LONG && key.type != ConfigKey.Type.INT) {
                continue;
            }
            assertEquals(key.name + "=" + key.defaultValue, key.shown(defaults));
            long min = key.min.longValue();
            MetadataConfig atMin = MetadataConfig.from(Map.of(key.name, min, baseOf(key), 0));
            assertEquals(key.name + "=" + min, key.shown(atMin));
            ConfigException e = assertThrows(ConfigException.class,
                    () -> MetadataConfig.from(Map.of(key.name, min - 1)));
            assertEquals(key.name, e.key());
        }
    }

    @Test
    void toStringShowsEveryKeyOfTheTableInItsOrder() {
        String s = MetadataConfig.from(Map.of()).toString();
        int at = 0;
        for (String name : ConfigKey.names()) {
            int next = s.indexOf(", " + name + "=", at);
            assertTrue(next >= at || s.startsWith("MetadataConfig{" + name + "="), name + " out of order: " + s);
            at = Math.max(at, next);
        }
    }

    /** A maximum is checked against its base: the base at 0 lets the maximum's own minimum through. */
    private static String baseOf(ConfigKey key) {
        return key.atLeastKey != null ? key.atLeastKey : "unrelated.key";
    }

    private static List<String> rowsOf(List<String> doc, String key) {
        List<String> rows = new ArrayList<>();
        for (String line : doc) {
            if (line.startsWith("| `" + key + "` |")) {
                rows.add(line);
            }
        }
        return rows;
    }

    /** docs/configuration.md of the repository: found from the working directory (the module's basedir) upwards. */
    private static Path configurationMd() {
        String basedir = System.getProperty("basedir", System.getProperty("user.dir"));
        for (Path dir = Path.of(basedir).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path doc = dir.resolve("docs").resolve("configuration.md");
            if (Files.isRegularFile(doc)) {
                return doc;
            }
        }
        throw new AssertionError("docs/configuration.md not found above " + basedir);
    }
}
