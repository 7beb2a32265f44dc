package io.elasticgpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

/** Configuration mistakes stop {@code egpu scheduler} before it touches a cluster, saying what to change. */
class SchedulerCommandTest {

    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = Egpu.commandLine();
        cli.setOut(new PrintWriter(new StringWriter()));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    @Test
    void anUnknownPolicyFlagExitsWithTwoAndTheChoices() {
        assertThat(run("scheduler", "--policy", "tetris")).isEqualTo(2);
        assertThat(err.toString()).startsWith("egpu scheduler: unknown policy \"tetris\"; choose one of: elastic, binpack");
    }

    @Test
    void aFileWithAnUnknownKeyExitsWithTwoAndTheKnownKeys() throws IOException {
        Path file = Files.writeString(dir.resolve("extender.yaml"), "polcy: binpack\n");
        assertThat(run("scheduler", "--config", file.toString())).isEqualTo(2);
        assertThat(err.toString()).startsWith("egpu scheduler: " + file + ": unknown key \"polcy\"; known keys: ")
                .contains("topologyWeight");
    }

    @Test
    void flagsAreCheckedOverTheFile() throws IOException {
        Path file = Files.writeString(dir.resolve("extender.yaml"), "policyWeight: 0\n");
        assertThat(run("scheduler", "--config", file.toString(), "--topology-weight", "0")).isEqualTo(2);
        assertThat(err.toString()).startsWith("egpu scheduler: policyWeight and topologyWeight must be finite");
    }

    @Test
    void verbsOnAnAddressOtherHostsReachNeedTheExplicitFlag() {
        assertThat(run("scheduler", "--listen", "0.0.0.0:8888")).isEqualTo(2);
        assertThat(err.toString()).startsWith("egpu scheduler: listen: 0.0.0.0:8888 is reachable from other hosts")
                .contains("--metrics-listen", "--allow-remote-callers");
    }
}
