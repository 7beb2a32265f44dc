package io.elasticgpu.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java line of every module is at most {@value #LIMIT} characters: the formatter (palantir-java-format, run by
 * every build's spotless check) keeps code within it, and this keeps the strings and comments it does not break. A
 * main class over {@value #LONG_FILE} lines says at its top why it is that long.
 */
class SourceLinesTest {

    static final int LIMIT = 120;
    static final int LONG_FILE = 400;
    static final String LONG_FILE_NOTE = "It is over 400 lines because";
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    @Test
    void noJavaLineIsLongerThanOneHundredAndTwentyCharacters() throws IOException {
        List<String> tooLong = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .toList()) {
                List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                for (int i = 0; i < lines.size(); i++) {
                    int length = lines.get(i).codePointCount(0, lines.get(i).length());
                    if (length > LIMIT) {
                        tooLong.add("%s:%d has %d characters".formatted(ROOT.relativize(f), i + 1, length));
                    }
                }
            }
        }
        assertThat(tooLong)
                .as("lines over %d characters; break the string or the comment", LIMIT)
                .isEmpty();
    }

    @Test
    void aMainClassOverFourHundredLinesSaysAtItsTopWhy() throws IOException {
        List<String> unexplained = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/main/java/"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .toList()) {
                List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                if (lines.size() <= LONG_FILE) {
                    continue;
                }
                String top = String.join(
                                "\n",
                                lines.stream()
                                        .takeWhile(l -> !l.matches(
                                                "^(public |final |abstract |sealed )*(class|record|interface|enum) .*"))
                                        .toList())
                        .replaceAll("\\s*\\n\\s*\\*\\s*", " ");
                if (!top.contains(LONG_FILE_NOTE)) {
                    unexplained.add("%s has %d lines".formatted(ROOT.relativize(f), lines.size()));
                }
            }
        }
        assertThat(unexplained)
                .as("main classes over %d lines whose top comment does not say \"%s ...\"", LONG_FILE, LONG_FILE_NOTE)
                .isEmpty();
    }

    @Test
    void theExtendersCacheFacadeIsAtMostOneHundredAndSixtyLines() throws IOException {
        Path facade = ROOT.resolve("scheduler/src/main/java/io/elasticgpu/scheduler/cache/ClusterCache.java");
        assertThat(Files.readAllLines(facade, StandardCharsets.UTF_8))
                .as("ClusterCache owns the lock, hands out snapshots and dumps; what it keeps belongs in Nodes,"
                        + " Pods, Claims and Assumptions")
                .hasSizeLessThanOrEqualTo(160);
    }
}
