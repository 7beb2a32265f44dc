package io.elasticgpu.bench.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SoakOptionsTest {

    @TempDir
    Path shared;

    private Path trace() throws Exception {
        Path dir = Files.createDirectories(shared.resolve("traces/openb"));
        return Files.writeString(dir.resolve("openb_pod_list_default.csv"), "name\n");
    }

    @Test
    void theDefaultsAreTenMinutesOnTwoHundredNodesWithAFaultEveryThirtySeconds() throws Exception {
        Path trace = trace();
        SoakOptions o = SoakOptions.parse(List.of(), shared);
        assertThat(o).isEqualTo(new SoakOptions(Duration.ofMinutes(10), 200, 1, Duration.ofSeconds(30), 500, trace, null));
    }

    @Test
    void everyOptionIsRead() throws Exception {
        trace();
        SoakOptions o = SoakOptions.parse(List.of("--minutes", "2.5", "--nodes", "12", "--seed", "7", "--fault-every", "12",
                "--burst", "100", "--json", "out.json"), shared);
        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(150));
        assertThat(o.nodes()).isEqualTo(12);
        assertThat(o.seed()).isEqualTo(7);
        assertThat(o.faultEvery()).isEqualTo(Duration.ofSeconds(12));
        assertThat(o.burst()).isEqualTo(100);
        assertThat(o.json()).isEqualTo(Path.of("out.json"));
    }

    @Test
    void badInputNamesTheOptionToChange() throws Exception {
        trace();
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--nodes", "2"), shared))
                .hasMessageContaining("--nodes must be a number in 3.0..5000.0, was \"2\"");
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--minutes"), shared)).hasMessage("--minutes needs a value");
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--speed", "1"), shared)).hasMessageStartingWith("unknown option --speed");
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--trace", "nope.csv"), shared))
                .hasMessageContaining("--trace: no such file nope.csv");
    }
}
