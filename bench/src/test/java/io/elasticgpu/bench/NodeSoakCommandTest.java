package io.elasticgpu.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.bench.soak.NodeSoakOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class NodeSoakCommandTest {

    @TempDir
    Path dir;

    private Path trace() throws Exception {
        return Files.writeString(dir.resolve("pods.csv"), "name\n");
    }

    private static NodeSoakOptions parse(String... args) {
        return Lab.parse(new NodeSoakCommand(), args).options();
    }

    @Test
    void theDefaultsAreAThousandPodsWithAFaultEveryTwentyFiveSteps() throws Exception {
        Path trace = trace();
        assertThat(parse("--trace", trace.toString())).isEqualTo(new NodeSoakOptions(1000, 1, 25, trace, null));
        assertThat(parse(
                        "--pods",
                        "150",
                        "--seed",
                        "7",
                        "--fault-every",
                        "10",
                        "--json",
                        "o.json",
                        "--trace",
                        trace.toString()))
                .isEqualTo(new NodeSoakOptions(150, 7, 10, trace, Path.of("o.json")));
    }

    @Test
    void badInputNamesTheOptionToChange() throws Exception {
        String trace = trace().toString();
        assertThatThrownBy(() -> parse("--trace", trace, "--pods", "5"))
                .hasMessage("--pods must be a number in 10..1000000, was 5");
        assertThatThrownBy(() -> parse("--fault-every"))
                .isInstanceOf(CommandLine.MissingParameterException.class)
                .hasMessageContaining("'--fault-every'");
        assertThatThrownBy(() -> parse("--minutes", "1"))
                .isInstanceOf(CommandLine.UnmatchedArgumentException.class)
                .hasMessageContaining("'--minutes'");
        assertThatThrownBy(() -> parse("--trace", "nope.csv")).hasMessageContaining("--trace: no such file nope.csv");
    }

    @Test
    void theTraceDefaultsToTheOneBesideTheCheckout() {
        NodeSoakCommand command = Lab.parse(new NodeSoakCommand());
        assertThat(command.trace)
                .isEqualTo(Path.of(
                        System.getProperty("egpu.shared", "../shared"), "traces/openb/openb_pod_list_default.csv"));
    }
}
