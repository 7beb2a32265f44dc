package io.elasticgpu.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The rules of DESIGN.md and STYLE.md for core, checked on the sources: the JDK only, no Kubernetes types, and data
 * flowing one way between packages (model, then snapshot, then policy, then placement).
 */
class DependencyRulesTest {

    private static final Path SOURCES = Path.of("src/main/java/io/elasticgpu/core");

    /** What each package may import from core, besides itself. */
    private static final Map<String, List<String>> ALLOWED = Map.of(
            "model", List.of(),
            "snapshot", List.of("model"),
            "policy", List.of("model", "snapshot"),
            "placement", List.of("model", "snapshot", "policy"));

    @Test
    void coreImportsTheJdkOnlyAndItsPackagesFlowOneWay() throws IOException {
        List<String> violations = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> check(f, violations));
        }
        assertThat(violations).isEmpty();
    }

    private static void check(Path file, List<String> violations) {
        String pkg = SOURCES.relativize(file.getParent()).toString();
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String line : lines) {
            if (!line.startsWith("import ")) {
                continue;
            }
            String imported = line.replace("import static ", "").replace("import ", "").replace(";", "").strip();
            if (imported.startsWith("java.")) {
                continue;
            }
            String prefix = "io.elasticgpu.core.";
            String target = imported.startsWith(prefix) ? imported.substring(prefix.length()).split("\\.")[0] : null;
            if (target == null || !(target.equals(pkg) || ALLOWED.get(pkg).contains(target))) {
                violations.add(file.getFileName() + " (" + pkg + ") imports " + imported);
            }
        }
    }
}
