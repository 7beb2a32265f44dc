package io.elasticgpu.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The glossary holds below the class names too ({@link GlossaryTest} checks those): no field, method, parameter or
 * variable of main code carries a word the glossary retired, as a word of its camel case ({@code handouts},
 * {@code planHandout}, {@code contributionOf}). Read from the sources, with comments and string literals left out:
 * the bytecode keeps no variable names. Words the glossary keeps in a narrow sense ({@code request} for HTTP and
 * kubelet, {@code allocation} for the annotation and kubelet's call) are not retired here.
 */
class GlossaryWordsTest {

    /** A retired word → the glossary's word for it. */
    static final Map<String, String> RETIRED = Map.of(
            "handout", "answer",
            "handouts", "answers",
            "contribution", "holding",
            "contributions", "holdings");

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern CAMEL_WORD = Pattern.compile("[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])");

    @Test
    void noIdentifierOfMainCodeKeepsARetiredWord() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/main/"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .toList()) {
                List<String> lines = code(Files.readString(f, StandardCharsets.UTF_8))
                        .lines()
                        .toList();
                for (int i = 0; i < lines.size(); i++) {
                    for (String identifier : identifiers(lines.get(i))) {
                        for (String word : words(identifier)) {
                            String instead = RETIRED.get(word);
                            if (instead != null) {
                                found.add(
                                        "%s:%d: %s (say %s)".formatted(ROOT.relativize(f), i + 1, identifier, instead));
                            }
                        }
                    }
                }
            }
        }
        assertThat(found)
                .as("identifiers with a word docs/architecture.md's glossary retired")
                .isEmpty();
    }

    @Test
    void aRetiredWordInsideAnIdentifierIsFoundAndCommentsAndStringsAreLeftAlone() {
        String source = """
                /** the handout of a call */
                String planHandouts = "a contribution"; // contributions
                PodHolding contributionOf(String uid) { return null; }
                """;

        List<String> words = new ArrayList<>();
        code(source).lines().forEach(l -> identifiers(l).forEach(id -> words.addAll(words(id))));

        assertThat(words).contains("handouts", "contribution").doesNotContain("handout", "contributions");
    }

    /** {@code source} with its comments and string and char literals blanked, line breaks kept. */
    static String code(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length()) {
            char c = source.charAt(i);
            if (source.startsWith("//", i)) {
                while (i < source.length() && source.charAt(i) != '\n') {
                    i++;
                }
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? source.length() : end + 2;
                source.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> out.append('\n'));
                i = end;
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                end = end < 0 ? source.length() : end + 3;
                source.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> out.append('\n'));
                i = end;
            } else if (c == '"' || c == '\'') {
                i++;
                while (i < source.length() && source.charAt(i) != c && source.charAt(i) != '\n') {
                    i += source.charAt(i) == '\\' ? 2 : 1;
                }
                i++;
                out.append(' ');
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static List<String> identifiers(String line) {
        List<String> out = new ArrayList<>();
        Matcher m = IDENTIFIER.matcher(line);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    private static List<String> words(String identifier) {
        List<String> out = new ArrayList<>();
        Matcher m = CAMEL_WORD.matcher(identifier);
        while (m.find()) {
            out.add(m.group().toLowerCase(Locale.ROOT));
        }
        return out;
    }
}
