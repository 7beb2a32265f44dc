package io.elasticgpu.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README and every page under {@code docs/}: each relative link leads to a file of the repository and, with an
 * {@code #anchor}, to a heading of that file (GitHub's anchors); nothing links outside the repository, which must
 * stand alone; and the README stays a map that fits on a few screens. Links to http(s) addresses are not followed.
 */
class DocsLinksTest {

    private static final Path ROOT = repositoryRoot();
    private static final int README_MAX_LINES = 250;

    @Test
    void everyRelativeLinkLeadsToAFileAndAHeadingThatExist() {
        Map<Path, MarkdownPage> pages = new HashMap<>();
        List<String> broken = new ArrayList<>();
        for (Path file : markdownFiles()) {
            MarkdownPage page = pages.computeIfAbsent(file, MarkdownPage::read);
            for (MarkdownPage.Link link : page.links()) {
                if (link.external()) {
                    continue;
                }
                String where =
                        "%s:%d: [%s](%s)".formatted(ROOT.relativize(file), link.line(), link.text(), link.target());
                Path target = link.path().isEmpty() ? file : resolve(file, link.path());
                if (!target.startsWith(ROOT)) {
                    broken.add(where + ": leads outside the repository; name the public source in a sentence instead");
                } else if (!Files.exists(target)) {
                    broken.add(where + ": " + ROOT.relativize(target) + " does not exist");
                } else if (!link.anchor().isEmpty() && target.toString().endsWith(".md")) {
                    MarkdownPage linked = pages.computeIfAbsent(target, MarkdownPage::read);
                    if (!linked.anchors().contains(link.anchor())) {
                        broken.add(where + ": no heading of " + ROOT.relativize(target) + " has the anchor #"
                                + link.anchor());
                    }
                }
            }
        }
        assertThat(broken).as("broken links in README.md and docs/").isEmpty();
    }

    @Test
    void theReadmeIsAMapOfAtMost250Lines() throws IOException {
        long lines = Files.readAllLines(ROOT.resolve("README.md")).size();

        assertThat(lines)
                .as("README.md has %d lines; move detail into docs/ and link to it", lines)
                .isLessThanOrEqualTo(README_MAX_LINES);
    }

    /** The README shows the main results; every result is on docs/results/README.md. */
    @Test
    void theReadmesResultsTableHasAtMost15RowsOfAtMost200Characters() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        int at = lines.indexOf("## Results");
        assertThat(at).as("README.md has a section \"## Results\"").isNotNegative();
        List<String> rows = lines.subList(at + 1, lines.size()).stream()
                .takeWhile(l -> !l.startsWith("## "))
                .filter(l -> l.startsWith("|"))
                .skip(2) // the header and its rule
                .toList();

        assertThat(rows)
                .as("the README's results rows; move the others to docs/results/README.md")
                .hasSizeBetween(1, 15);
        assertThat(rows)
                .as("results rows over 200 characters; say it shorter, the page says the rest")
                .allSatisfy(r -> assertThat(r.length()).isLessThanOrEqualTo(200));
    }

    @Test
    void headingsGetGitHubsAnchors() {
        MarkdownPage page = MarkdownPage.parse(
                Path.of("page.md"),
                List.of(
                        "# `egpu simulate`: replay a trace",
                        "## Through DRA (`--api dra`)",
                        "## What a pod asks, and what it gets",
                        "## Notes",
                        "### Notes",
                        "## [Arena](arena.md): HAMi and whole cards",
                        "## node_agent 1,213 nodes"));

        assertThat(page.anchors())
                .containsExactlyInAnyOrder(
                        "egpu-simulate-replay-a-trace",
                        "through-dra---api-dra",
                        "what-a-pod-asks-and-what-it-gets",
                        "notes",
                        "notes-1",
                        "arena-hami-and-whole-cards",
                        "node_agent-1213-nodes");
    }

    @Test
    void linksInsideCodeAreNotLinksAndEveryOtherFormIs() {
        MarkdownPage page = MarkdownPage.parse(
                Path.of("page.md"),
                List.of(
                        "See [the guide](docs/user-guide.md#claims) and ![chart](docs/a.svg \"title\").",
                        "`[not a link](nowhere.md)` and [a site](https://example.com).",
                        "```sh",
                        "echo [not a link](nowhere.md)",
                        "```",
                        "[ref]: docs/install.md#upgrade"));

        assertThat(page.links())
                .containsExactly(
                        new MarkdownPage.Link(1, "the guide", "docs/user-guide.md#claims"),
                        new MarkdownPage.Link(1, "chart", "docs/a.svg"),
                        new MarkdownPage.Link(2, "a site", "https://example.com"),
                        new MarkdownPage.Link(6, "ref", "docs/install.md#upgrade"));
        assertThat(page.links().get(2).external()).isTrue();
        assertThat(page.links().get(0).path()).isEqualTo("docs/user-guide.md");
        assertThat(page.links().get(0).anchor()).isEqualTo("claims");
    }

    private static List<Path> markdownFiles() {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /**
     * A link's path as GitHub resolves it: from the page's folder, or from the repository's root when it starts with
     * '/'. */
    private static Path resolve(Path page, String path) {
        String decoded = URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
        Path base = decoded.startsWith("/") ? ROOT : page.getParent();
        return base.resolve(decoded.replaceFirst("^/+", "")).normalize();
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no directory above " + Path.of("").toAbsolutePath() + " holds mvnw and docs/");
    }
}
