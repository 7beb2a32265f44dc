package io.elasticgpu.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.bench.soak.SoakOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SoakCommandTest {

    @TempDir
    Path dir;

    private Path trace() throws Exception {
        return Files.writeString(dir.resolve("pods.csv"), "name\n");
    }

    private static SoakOptions parse(String... args) {
        return Lab.parse(new SoakCommand(), args).options();
    }

    @Test
    void theDefaultsAreTenMinutesOnTwoHundredNodesWithAFaultEveryThirtySeconds() throws Exception {
        Path trace = trace();
        assertThat(parse("--trace", trace.toString()))
                .isEqualTo(new SoakOptions(
                        Duration.ofMinutes(10), 200, 1, Duration.ofSeconds(30), 500, trace, null, null));
    }

    @Test
    void everyOptionIsRead() throws Exception {
        SoakOptions o = parse(
                "--minutes",
                "2.5",
                "--nodes",
                "12",
                "--seed",
                "7",
                "--fault-every",
                "12",
                "--burst",
                "100",
                "--json",
                "out.json",
                "--restarts-until",
                "1.5",
                "--trace",
                trace().toString());
        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(150));
        assertThat(o.nodes()).isEqualTo(12);
        assertThat(o.seed()).isEqualTo(7);
        assertThat(o.faultEvery()).isEqualTo(Duration.ofSeconds(12));
        assertThat(o.burst()).isEqualTo(100);
        assertThat(o.json()).isEqualTo(Path.of("out.json"));
        assertThat(o.restartsUntil()).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void badInputNamesTheOptionToChange() throws Exception {
        String trace = trace().toString();
        assertThatThrownBy(() -> parse("--trace", trace, "--nodes", "2"))
                .hasMessage("--nodes must be a number in 3..5000, was 2");
        assertThatThrownBy(() -> parse("--trace", trace, "--minutes", "0.25"))
                .hasMessage("--minutes must be a number in 0.5..1440, was 0.25");
        assertThatThrownBy(() -> parse("--trace", trace, "--minutes", "20", "--restarts-until", "30"))
                .hasMessage("--restarts-until must be a number in 0.5..20, was 30");
        assertThatThrownBy(() -> parse("--minutes"))
                .isInstanceOf(CommandLine.MissingParameterException.class)
                .hasMessageContaining("'--minutes'");
        assertThatThrownBy(() -> parse("--speed", "1"))
                .isInstanceOf(CommandLine.UnmatchedArgumentException.class)
                .hasMessageContaining("'--speed'");
        assertThatThrownBy(() -> parse("--trace", "nope.csv")).hasMessageContaining("--trace: no such file nope.csv");
    }
}
