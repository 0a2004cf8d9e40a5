package dev.kmeta.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The docs a newcomer reads stay true to the tree and short: every relative link of the README and of
 * {@code docs/*.md} reaches an existing file (and heading, for {@code #anchor} links), and the two summary pages stay
 * one page each (their detail lives on the pages they link).
 */
class DocsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final int ONE_PAGE_LINES = 120;

    @Test
    void everyRelativeLinkReachesAFileAndHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            Matcher m = LINK.matcher(Files.readString(page));
            while (m.find()) {
                String target = m.group(1);
                if (!target.contains("://") && !target.startsWith("mailto:") && !reaches(page, target)) {
                    broken.add(ROOT.relativize(page) + " -> " + target);
                }
            }
        }
        assertTrue(broken.isEmpty(), "broken links: " + broken);
    }

    @Test
    void theSummaryPagesAreOnePageEach() throws IOException {
        for (String page : List.of("docs/benchmarks.md", "docs/reliability.md")) {
            long lines = Files.readAllLines(ROOT.resolve(page)).size();
            assertTrue(lines <= ONE_PAGE_LINES, page + " has " + lines + " lines; one page is " + ONE_PAGE_LINES
                    + ": move detail to the page it links");
        }
    }

    /** docs/cli.md has a section per command of {@code kmeta} (the README sends readers there for each, demo too). */
    @Test
    void cliPageHasASectionPerCommand() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/cli.md"));
        List<String> missing = new ArrayList<>();
        for (String command : KmetaCli.commandLine().getSubcommands().keySet()) {
            if (!Pattern.compile("(?m)^## `kmeta " + Pattern.quote(command) + "[ `]").matcher(page).find()) {
                missing.add(command);
            }
        }
        assertTrue(missing.isEmpty(), "docs/cli.md has no '## `kmeta <command> ...`' section for " + missing);
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    private static boolean reaches(Path page, String target) {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
            return false;
        }
        return hash < 0 || !resolved.toString().endsWith(".md") || anchors(resolved).contains(target.substring(hash + 1));
    }

    /** GitHub's heading anchors: lower case, punctuation other than '-' and '_' dropped, spaces as '-'. */
    private static List<String> anchors(Path page) {
        try {
            List<String> anchors = new ArrayList<>();
            for (String line : Files.readAllLines(page)) {
                if (line.startsWith("#")) {
                    String text = line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT);
                    anchors.add(text.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
                }
            }
            return anchors;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
