package io.elasticgpu.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Markdown file as GitHub reads it, for the link check: its links ({@code [text](target)}, images and link
 * definitions, outside code) and the anchors its headings get. Immutable.
 */
record MarkdownPage(Path file, List<Link> links, Set<String> anchors) {

    /**
     * A link as written: its line (from 1), its text and its target ({@code path}, {@code path#anchor} or {@code
     * #anchor}). */
    record Link(int line, String text, String target) {
        boolean external() {
            return target.matches("(?i)^[a-z][a-z0-9+.-]*:.*");
        }

        String path() {
            int hash = target.indexOf('#');
            return hash < 0 ? target : target.substring(0, hash);
        }

        String anchor() {
            int hash = target.indexOf('#');
            return hash < 0 ? "" : target.substring(hash + 1);
        }
    }

    private static final Pattern INLINE_LINK =
            Pattern.compile("!?\\[((?:[^\\[\\]]|\\[[^\\]]*])*)]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern DEFINITION = Pattern.compile("^ {0,3}\\[([^\\]]+)]:\\s*<?(\\S+?)>?(?:\\s+.*)?$");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)(?:\\s+#+)?\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
    private static final Pattern FENCE = Pattern.compile("^ {0,3}(```|~~~)");

    static MarkdownPage read(Path file) {
        try {
            return parse(file, Files.readAllLines(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static MarkdownPage parse(Path file, List<String> lines) {
        List<Link> links = new ArrayList<>();
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        String fence = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher fenceMark = FENCE.matcher(line);
            if (fenceMark.find()) {
                fence = fence == null ? fenceMark.group(1) : fence.equals(fenceMark.group(1)) ? null : fence;
                continue;
            }
            if (fence != null) {
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(2));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
            Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find()) {
                anchors.add(html.group(1));
            }
            // Code is not Markdown: a link written inside backticks is text, but code inside a link's text stays.
            String prose = CODE_SPAN
                    .matcher(line)
                    .replaceAll(code -> Matcher.quoteReplacement(code.group(2).replaceAll("[\\[\\]()]", "_")));
            Matcher definition = DEFINITION.matcher(prose);
            if (definition.matches()) {
                links.add(new Link(i + 1, definition.group(1), definition.group(2)));
                continue;
            }
            Matcher link = INLINE_LINK.matcher(prose);
            while (link.find()) {
                links.add(new Link(i + 1, link.group(1), link.group(2)));
            }
        }
        return new MarkdownPage(file, List.copyOf(links), Set.copyOf(anchors));
    }

    /**
     * The anchor GitHub gives a heading: its text as rendered (links reduced to their text, code without its
     * backticks), lower-cased, every character that is not a letter, digit, '-', '_' or space dropped, and each
     * space made a '-'. "`egpu simulate`: replay a trace" becomes "egpu-simulate-replay-a-trace".
     */
    static String slug(String headingText) {
        String rendered = headingText
                .replaceAll("!?\\[((?:[^\\[\\]]|\\[[^\\]]*])*)]\\([^)]*\\)", "$1")
                .replaceAll("<[^>]+>", "");
        return rendered.toLowerCase(java.util.Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]", "")
                .replace(' ', '-');
    }
}
