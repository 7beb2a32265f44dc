package io.elasticgpu.controller.view;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fixture cluster rendered in every format equals the files under {@code src/test/resources/golden} byte for
 * byte. After a deliberate change, {@code -Degpu.golden.update=true} rewrites them; read the diff before committing.
 */
class GoldenOutputTest {

    private static final Path DIR = Path.of(System.getProperty("egpu.golden.dir", "src/test/resources/golden"));

    @ParameterizedTest(name = "{0} with node={1} namespace={2} is {3}")
    @CsvSource(
            nullValues = "-",
            value = {
                "table, -, -, cluster.table.txt",
                "wide, -, -, cluster.wide.txt",
                "json, -, -, cluster.json",
                "yaml, -, -, cluster.yaml",
                "table, -, team-b, namespace-team-b.table.txt",
                "wide, gpu-t2, -, node-gpu-t2.wide.txt",
            })
    void theRenderingEqualsTheGoldenFile(String format, String node, String namespace, String file) throws IOException {
        ClusterView view = ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods(), new Scope(node, namespace));
        String actual = ViewFormat.parse(format).render(view);
        Path golden = DIR.resolve(file);
        if (Boolean.getBoolean("egpu.golden.update")) {
            Files.createDirectories(DIR);
            Files.writeString(golden, actual, StandardCharsets.UTF_8);
        }
        assertThat(golden)
                .as("golden file; run with -Degpu.golden.update=true to write it")
                .exists();
        assertThat(actual).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
    }
}
