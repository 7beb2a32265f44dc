package io.elasticgpu.simulator;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shared folder beside the checkout ({@code ../shared}: traces and the FGD artifact's results). Tests that
 * need it are skipped, not failed, where it is absent; CI runs with it present.
 */
public final class SharedFiles {

    private SharedFiles() {
    }

    public static Path require(String relative) {
        Path root = Path.of(System.getProperty("egpu.shared", "../../shared"));
        Path file = root.resolve(relative);
        assumeTrue(Files.exists(file), () -> "skipped: " + file + " is absent");
        return file;
    }
}
