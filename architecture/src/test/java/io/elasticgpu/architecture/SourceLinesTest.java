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
 * every build's spotless check) keeps code within it, and this keeps the strings and comments it does not break.
 */
class SourceLinesTest {

    static final int LIMIT = 120;
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
}
