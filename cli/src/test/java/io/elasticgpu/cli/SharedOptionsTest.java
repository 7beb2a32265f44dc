package io.elasticgpu.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.controller.webhook.ShareAdmission;
import io.elasticgpu.node.isolation.IsolationConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** The options several commands share, declared once as mixins: the same text everywhere, each command's meaning. */
class SharedOptionsTest {

    @TempDir
    Path dir;

    /** Which commands share which option. */
    private static final Map<String, List<String>> SHARED = Map.of(
            "--kubeconfig", List.of("scheduler", "node-agent", "controller", "inspect"),
            "--memory-block-mib", List.of("scheduler", "node-agent", "controller"),
            "--aliyun-unit-mib", List.of("scheduler", "node-agent", "controller"),
            "--isolation", List.of("node-agent", "controller"),
            "--metrics-listen", List.of("scheduler", "node-agent"),
            "--log-level", List.of("scheduler", "node-agent", "controller"));

    @Test
    void aSharedOptionReadsTheSameInEveryCommandThatHasIt() {
        var commands = ReferenceDocs.subcommands();
        SHARED.forEach((option, names) -> {
            List<OptionSpec> specs =
                    names.stream().map(n -> commands.get(n).findOption(option)).toList();
            assertThat(specs).as(option).doesNotContainNull();
            assertThat(specs)
                    .as(option + ": label, default and description")
                    .extracting(OptionSpec::paramLabel, OptionSpec::defaultValue, o -> List.of(o.description()))
                    .containsOnly(org.assertj.core.groups.Tuple.tuple(
                            specs.getFirst().paramLabel(),
                            specs.getFirst().defaultValue(),
                            List.of(specs.getFirst().description())));
        });
    }

    @Test
    void theSchedulersUnitsAndMetricsAddressComeFromTheFileUnlessGiven() throws IOException {
        Path file = Files.writeString(
                dir.resolve("egpu.yaml"),
                "version: v1\nscheduler:\n  memoryBlockMib: 256\n  aliyunUnitMib: 512\n"
                        + "  metricsListen: 0.0.0.0:9402\n");

        SchedulerCommand fileOnly = parse(new SchedulerCommand(), "--config", file.toString());
        SchedulerCommand flags = parse(
                new SchedulerCommand(),
                "--config",
                file.toString(),
                "--aliyun-unit-mib",
                "1024",
                "--metrics-listen",
                "off");

        assertThat(fileOnly.config().memoryBlockMib())
                .as("the mixin's default 1 does not override the file")
                .isEqualTo(256);
        assertThat(fileOnly.config().aliyunUnitMib()).isEqualTo(512);
        assertThat(fileOnly.config().metricsListen().map(Object::toString)).contains("0.0.0.0:9402");
        assertThat(flags.config().aliyunUnitMib()).isEqualTo(1024);
        assertThat(flags.config().metricsListen()).as("off: no metrics address").isEmpty();
        assertThat(parse(new SchedulerCommand()).config().units().memoryBlockMib())
                .isEqualTo(1);
    }

    @ParameterizedTest(name = "node-agent {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "''                                 | 0.0.0.0:9401",
                "--metrics-listen 127.0.0.1:19401   | 127.0.0.1:19401",
                "--metrics-listen off               | none",
            })
    void theNodeAgentServesMetricsOn9401UnlessToldOtherwise(String args, String expected) {
        NodeAgentCommand command = parse(
                new NodeAgentCommand(),
                args.isBlank() ? new String[] {"--node-name", "gpu-1"} : (args + " --node-name gpu-1").split(" "));

        assertThat(command.config().metricsListen().map(Object::toString).orElse("none"))
                .isEqualTo(expected);
    }

    @Test
    void theNodeAgentAndTheControllerReadTheContextReserveAlike() {
        NodeAgentCommand agent = parse(
                new NodeAgentCommand(),
                "--node-name",
                "gpu-1",
                "--isolation",
                "mps",
                "--mps-context-reserve-mib",
                "512");
        ControllerCommand controller =
                parse(new ControllerCommand(), "--isolation", "mps", "--mps-context-reserve-mib", "512");

        assertThat(agent.config().isolation().contextReserveMib()).isEqualTo(512);
        assertThat(controller.shares().contextReserveMib()).isEqualTo(512);
        // the same default: MpsLimits.DEFAULT_CONTEXT_RESERVE_MIB
        assertThat(parse(new ControllerCommand(), "--isolation", "mps").shares().contextReserveMib())
                .isEqualTo(parse(new NodeAgentCommand(), "--node-name", "gpu-1")
                        .config()
                        .isolation()
                        .contextReserveMib())
                .isEqualTo(1024);
        assertThatThrownBy(() -> parse(new ControllerCommand(), "--mps-context-reserve-mib", "-1")
                        .shares())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--mps-context-reserve-mib must be 0..16384, was -1");
    }

    @Test
    void theNodeAgentAndTheControllerReadIsolationAndUnitsAlike() {
        NodeAgentCommand agent =
                parse(new NodeAgentCommand(), "--node-name", "gpu-1", "--isolation", "mps", "--memory-block-mib", "16");
        ControllerCommand controller = parse(new ControllerCommand(), "--isolation", "mps", "--memory-block-mib", "16");

        assertThat(agent.config().isolation().mode()).isEqualTo(IsolationConfig.Mode.MPS);
        assertThat(agent.config().units().memoryBlockMib()).isEqualTo(16);
        assertThat(controller.shares())
                .isEqualTo(new ShareAdmission(
                        ShareAdmission.Isolation.MPS, agent.config().units()));
        assertThat(controller.config().webhook().orElseThrow().shares()).isEqualTo(controller.shares());
    }

    @Test
    void anUnknownLogLevelExitsWithTwoNamingTheFlagAndTheLevels() {
        StringWriter err = new StringWriter();
        CommandLine cli = Egpu.commandLine();
        cli.setErr(new PrintWriter(err));

        assertThat(cli.execute("scheduler", "--log-level", "loud")).isEqualTo(2);
        assertThat(err.toString())
                .isEqualTo("egpu scheduler: --log-level must be error, warn, info, debug or trace," + " was loud"
                        + System.lineSeparator());
    }

    @Test
    void theKubeconfigReachesTheCommand() {
        assertThat(parse(new ControllerCommand(), "--kubeconfig", "/tmp/kc")
                        .kubeconfig
                        .path())
                .isEqualTo(Path.of("/tmp/kc"));
        assertThat(parse(new NodeAgentCommand(), "--node-name", "n").kubeconfig.path())
                .isNull();
        assertThat(Optional.ofNullable(parse(new SchedulerCommand()).kubeconfig.path()))
                .isEmpty();
    }

    private static <T> T parse(T command, String... args) {
        Egpu.configured(new CommandLine(command), Map.of()).parseArgs(args);
        return command;
    }
}
