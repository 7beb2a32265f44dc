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
 * kubelet, {@code allocation} for the annotation and kubelet's call) are not retired here. A field, parameter, variable
 * or record component of an ask type ({@code Ask}, {@code PodAsk}, {@code List<GpuAsk>}...) is named for the ask:
 * {@code ask}, {@code asks}, {@code podAsk}, not {@code r}, {@code request} or {@code shape}.
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

    /**
     * A declaration of an ask type: the type (a simple name ending in {@code Ask} or {@code Asks}, with its type
     * arguments, or the last type argument of a {@code List}, {@code Optional}, {@code Map}...), then the name and
     * what may follow a declared name ({@code =}, {@code ;}, {@code ,}, {@code )}, {@code :} of a for loop, {@code ->}
     * of a case). A name followed by {@code (} is a method's, not a declaration of an ask.
     */
    private static final Pattern ASK_DECLARATION =
            Pattern.compile("\\b((?:[A-Z][A-Za-z0-9]*)?Asks?)(<[^<>;]*>)?((?:\\s*>)*)((?:\\s*\\[\\])*)"
                    + "\\s+([a-z][A-Za-z0-9]*)\\s*(->|[=;,):])");

    @Test
    void noIdentifierOfMainCodeKeepsARetiredWord() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path f : mainSources()) {
            List<String> lines =
                    code(Files.readString(f, StandardCharsets.UTF_8)).lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                for (String identifier : identifiers(lines.get(i))) {
                    for (String word : words(identifier)) {
                        String instead = RETIRED.get(word);
                        if (instead != null) {
                            found.add("%s:%d: %s (say %s)".formatted(ROOT.relativize(f), i + 1, identifier, instead));
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
    void everyDeclarationOfAnAskTypeInMainCodeIsNamedForTheAsk() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path f : mainSources()) {
            String code = code(Files.readString(f, StandardCharsets.UTF_8));
            for (String declaration : askDeclarationsNotNamedForTheAsk(code)) {
                found.add("%s:%s (name it ask, asks or e.g. podAsk)".formatted(ROOT.relativize(f), declaration));
            }
        }
        assertThat(found)
                .as("fields, parameters and variables of an ask type named for something else")
                .isEmpty();
    }

    @Test
    void anAskNamedForSomethingElseIsFoundAndMethodsReturningAsksAreLeftAlone() {
        String source = """
                PodAsk request = PodAsk.of(pod, units);
                for (Ask r : requests) { }
                List<Ask> shapes; Map<String, List<GpuAsk>> byNode = Map.of();
                record Fits(List<Grant> grants, PodAsk ask, List<ComputeAsk> computeAsks) { }
                PodAsk parse(Pod pod) { return PodAsk.of(pod, units); }
                static List<Ask> workload(List<Ask> podAsks, Ask askOf, ComputeAsk NONE) { }
                String ask = "Ask r = null;"; // Ask shape;
                """;

        assertThat(askDeclarationsNotNamedForTheAsk(code(source)))
                .containsExactly("1: PodAsk request", "2: Ask r", "3: Ask shapes", "3: GpuAsk byNode");
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

    /** Every Java source of main code in the repository, build output left out. */
    private static List<Path> mainSources() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/main/"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .toList();
        }
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

    /** {@code <line>: <type> <name>} of each declaration of an ask type in {@code code} whose name has no word ask. */
    static List<String> askDeclarationsNotNamedForTheAsk(String code) {
        List<String> out = new ArrayList<>();
        Matcher m = ASK_DECLARATION.matcher(code);
        while (m.find()) {
            List<String> words = words(m.group(5));
            if (!words.contains("ask") && !words.contains("asks")) {
                long line = code.substring(0, m.start())
                                .chars()
                                .filter(c -> c == '\n')
                                .count()
                        + 1;
                out.add("%d: %s %s".formatted(line, m.group(1), m.group(5)));
            }
        }
        return out;
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
