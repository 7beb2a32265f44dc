package io.elasticgpu.bench.arena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The arena refuses to run HAMi, saying what is missing, when its source or Go is not there. */
class HamiSchedulerTest {

    /** The repository the test runs in: bench's working directory is the module, one below. */
    private static final Path REPOSITORY = Path.of("").toAbsolutePath().getParent();

    @TempDir
    Path dir;

    @Test
    void withoutHamisSourceItSaysWhereToPutIt() {
        assertThatThrownBy(() -> HamiScheduler.build(
                        REPOSITORY,
                        Map.of(
                                "HAMI_SRC",
                                dir.resolve("none.tar.gz").toString(),
                                "EGPU_E2E_CACHE",
                                dir.resolve("cache").toString())))
                .hasMessageContaining("its source is missing")
                .hasMessageContaining("HAMI_SRC");
    }

    @Test
    void withoutGoItSaysToInstallIt() throws Exception {
        // A source archive of the right name, and a PATH holding the script's own tools but no go.
        Path source = Files.writeString(dir.resolve("hami-v2.10.0-src.tar.gz"), "not built: go is missing first");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        for (String tool : List.of("bash", "sha256sum", "cut", "sed", "basename", "dirname")) {
            Path found = List.of(Path.of("/usr/bin", tool), Path.of("/bin", tool)).stream()
                    .filter(Files::isExecutable)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(tool + " is not in /usr/bin or /bin"));
            Files.createSymbolicLink(bin.resolve(tool), found);
        }
        assertThatThrownBy(() -> HamiScheduler.build(
                        REPOSITORY,
                        Map.of(
                                "HAMI_SRC",
                                source.toString(),
                                "EGPU_E2E_CACHE",
                                dir.resolve("cache").toString(),
                                "PATH",
                                bin.toString())))
                .hasMessageContaining("Go is missing");
        assertThat(dir.resolve("cache/bin")).doesNotExist();
    }
}
