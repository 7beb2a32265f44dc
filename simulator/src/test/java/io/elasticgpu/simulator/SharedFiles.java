package io.elasticgpu.simulator;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shared folder beside the checkout ({@code ../shared}: traces and the FGD artifact's results). Tests that
 * need it are skipped where it is absent on a developer's machine, but fail in CI ({@code CI=true}, or
 * {@code -Degpu.shared.required=true}): there a missing trace means the exact FGD replay did not run, and a
 * skipped check must never pass for a green one.
 */
public final class SharedFiles {

    private SharedFiles() {}

    public static Path require(String relative) {
        Path root = Path.of(System.getProperty("egpu.shared", "../../shared"));
        Path file = root.resolve(relative);
        if (!Files.exists(file) && required()) {
            fail(file
                    + " is absent, and CI requires the shared traces: clone beside ../shared or pass "
                    + "-Degpu.shared=DIR");
        }
        assumeTrue(Files.exists(file), () -> "skipped: " + file + " is absent");
        return file;
    }

    static boolean required() {
        return "true".equalsIgnoreCase(System.getenv("CI")) || Boolean.getBoolean("egpu.shared.required");
    }
}
