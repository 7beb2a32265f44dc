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
        assertThat(err.toString())
                .startsWith("egpu scheduler: unknown policy \"tetris\"; choose one of: elastic, binpack");
    }

    @Test
    void flagsAreCheckedOverTheFile() throws IOException {
        Path file = Files.writeString(dir.resolve("egpu.yaml"), "version: v1\nscheduler:\n  policyWeight: 0\n");
        assertThat(run("scheduler", "--config", file.toString(), "--topology-weight", "0"))
                .isEqualTo(2);
        assertThat(err.toString()).startsWith("egpu scheduler: policyWeight and topologyWeight must be finite");
    }

    @Test
    void verbsOnAnAddressOtherHostsReachNeedTheExplicitFlag() {
        assertThat(run("scheduler", "--listen", "0.0.0.0:8888")).isEqualTo(2);
        assertThat(err.toString())
                .startsWith("egpu scheduler: listen: 0.0.0.0:8888 is reachable from other hosts")
                .contains("--metrics-listen", "--allow-remote-callers");
    }

    @Test
    void aFlagOfTheWrongTypeExitsWithTwoNamingTheFlagAndTheValue() {
        assertThat(run("scheduler", "--memory-block-mib", "lots")).isEqualTo(2);
        assertThat(err.toString()).contains("--memory-block-mib", "'lots'");
    }

    @Test
    void flagsOverrideTheFileWhichOverridesTheDefaults() throws IOException {
        Path file = Files.writeString(
                dir.resolve("egpu.yaml"),
                "version: v1\nscheduler:\n  policy: binpack\n  memoryBlockMib: 0\n  holdPeriod: PT5S\n");
        SchedulerCommand command = new SchedulerCommand();
        Egpu.configured(new CommandLine(command), java.util.Map.of())
                .parseArgs(
                        "--config",
                        file.toString(),
                        "--memory-block-mib",
                        "16",
                        "--policy",
                        "fgd",
                        "--no-decide-in-filter",
                        "--metrics-listen",
                        "0.0.0.0:9402");

        var config = command.config();

        assertThat(config.memoryBlockMib()).as("the flag mends the file's 0").isEqualTo(16);
        assertThat(config.policy()).isEqualTo(io.elasticgpu.core.policy.PolicyName.FGD);
        assertThat(config.hold()).as("from the file").isEqualTo(java.time.Duration.ofSeconds(5));
        assertThat(config.decideInFilter()).isFalse();
        assertThat(config.metricsListen().map(Object::toString)).contains("0.0.0.0:9402");
        assertThat(config.listen()).as("the default").hasToString("127.0.0.1:8888");
    }
}
