package io.elasticgpu.bench.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeSoakOptionsTest {

    @TempDir
    Path shared;

    private Path trace() throws Exception {
        Path dir = Files.createDirectories(shared.resolve("traces/openb"));
        return Files.writeString(dir.resolve("openb_pod_list_default.csv"), "name\n");
    }

    @Test
    void theDefaultsAreAThousandPodsWithAFaultEveryTwentyFiveSteps() throws Exception {
        Path trace = trace();
        assertThat(NodeSoakOptions.parse(List.of(), shared)).isEqualTo(new NodeSoakOptions(1000, 1, 25, trace, null));
        assertThat(NodeSoakOptions.parse(List.of("--pods", "150", "--seed", "7", "--fault-every", "10", "--json", "o.json"), shared))
                .isEqualTo(new NodeSoakOptions(150, 7, 10, trace, Path.of("o.json")));
    }

    @Test
    void badInputNamesTheOptionToChange() throws Exception {
        trace();
        assertThatThrownBy(() -> NodeSoakOptions.parse(List.of("--pods", "5"), shared))
                .hasMessageContaining("--pods must be a number in 10.0..1000000.0, was \"5\"");
        assertThatThrownBy(() -> NodeSoakOptions.parse(List.of("--fault-every"), shared)).hasMessage("--fault-every needs a value");
        assertThatThrownBy(() -> NodeSoakOptions.parse(List.of("--minutes", "1"), shared))
                .hasMessage("unknown option --minutes; known: --pods, --seed, --fault-every, --trace, --json");
        assertThatThrownBy(() -> NodeSoakOptions.parse(List.of("--trace", "nope.csv"), shared))
                .hasMessageContaining("--trace: no such file nope.csv");
    }
}
