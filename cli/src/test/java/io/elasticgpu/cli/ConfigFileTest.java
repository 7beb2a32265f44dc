package io.elasticgpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.policy.PolicyName;
import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.isolation.IsolationConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * One configuration file for the three components ({@code --config}), one precedence (flag, environment, file,
 * default), and a file that is wrong refused at start with the key's path.
 */
class ConfigFileTest {

    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private Path file(String yaml) throws IOException {
        return Files.writeString(dir.resolve("egpu.yaml"), yaml);
    }

    /** {@code command} parsed as {@code egpu} would, with {@code environment} as the process's. */
    private static <T> T parse(T command, Map<String, String> environment, String... args) {
        Egpu.configured(new CommandLine(command), environment).parseArgs(args);
        return command;
    }

    private int run(Map<String, String> environment, String... args) {
        CommandLine cli = Egpu.commandLine(environment);
        cli.setOut(new PrintWriter(new StringWriter()));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    @Test
    void aFlagOverridesTheEnvironmentWhichOverridesTheFileWhichOverridesTheDefault() throws IOException {
        Path f = file("""
                version: v1
                scheduler:
                  policy: binpack
                  holdPeriod: PT5S
                  workloadRefreshInterval: PT20S
                  memoryBlockMib: 64
                """);
        Map<String, String> env = Map.of("EGPU_HOLD_PERIOD", "PT7S", "EGPU_MEMORY_BLOCK_MIB", "32");

        var config = parse(new SchedulerCommand(), env, "--config", f.toString(), "--memory-block-mib", "16")
                .config();

        assertThat(config.memoryBlockMib()).as("flag over environment and file").isEqualTo(16);
        assertThat(config.hold()).as("environment over file").isEqualTo(Duration.ofSeconds(7));
        assertThat(config.policy()).as("file over default").isEqualTo(PolicyName.BINPACK);
        assertThat(config.workloadRefresh()).isEqualTo(Duration.ofSeconds(20));
        assertThat(config.staleReservation()).as("the default").isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void theNodeAgentAndTheControllerReadTheirOwnSectionsOfOneFile() throws IOException {
        Path f = file("""
                version: v1
                scheduler:
                  policy: fgd
                nodeAgent:
                  isolation: mps
                  mpsLayout: per-card
                  compatibility: false
                  ignoredXids: [13, 31]
                  usageInterval: PT30S
                  mpsHostNamespaces: true
                  mpsRoot: "/run/egpu-mps"
                controller:
                  isolation: mps
                  namespaceForLease: gpu-system
                  webhook: false
                  leaderElection: false
                """);

        AgentConfig agent = parse(new NodeAgentCommand(), Map.of(), "--config", f.toString(), "--node-name", "gpu-1")
                .config();
        var controller = parse(new ControllerCommand(), Map.of(), "--config", f.toString())
                .config();

        assertThat(agent.isolation().mode()).isEqualTo(IsolationConfig.Mode.MPS);
        assertThat(agent.isolation().layout()).isEqualTo(IsolationConfig.Layout.PER_CARD);
        assertThat(agent.compatibility())
                .as("compatibility: false is --no-compatibility")
                .isFalse();
        assertThat(agent.health().ignoredXids()).containsExactlyInAnyOrder(13L, 31L);
        assertThat(agent.usageEvery()).isEqualTo(Duration.ofSeconds(30));
        assertThat(agent.isolation().hostNamespaces())
                .as("mpsHostNamespaces: true is the switch")
                .isTrue();
        assertThat(agent.isolation().root()).isEqualTo(Path.of("/run/egpu-mps"));
        assertThat(controller.leaseNamespace()).isEqualTo("gpu-system");
        assertThat(controller.webhook()).as("webhook: false is --no-webhook").isEmpty();
        assertThat(controller.leaderElection()).isFalse();
    }

    @Test
    void anUnknownKeyIsRefusedWithItsPathAndTheKeysItCouldBe() throws IOException {
        Path f = file("version: v1\nnodeAgent:\n  mpsLayot: per-card\n");

        assertThat(run(Map.of(), "node-agent", "--config", f.toString(), "--node-name", "gpu-1"))
                .isEqualTo(2);
        assertThat(err.toString())
                .startsWith("egpu node-agent: " + f + ": unknown key nodeAgent.mpsLayot; the keys of nodeAgent are ")
                .contains("mpsLayout", "isolation", "usageInterval");
    }

    @Test
    void anUnknownSectionIsRefused() throws IOException {
        Path f = file("version: v1\nextender:\n  policy: fgd\n");

        assertThat(run(Map.of(), "scheduler", "--config", f.toString())).isEqualTo(2);
        assertThat(err.toString())
                .startsWith("egpu scheduler: " + f + ": unknown key extender; the file holds version and the sections"
                        + " scheduler, nodeAgent, controller");
    }

    @Test
    void aFileWithoutAVersionOrWithAnotherIsRefusedSayingWhichToWrite() throws IOException {
        Path none = file("scheduler:\n  policy: fgd\n");
        assertThat(run(Map.of(), "scheduler", "--config", none.toString())).isEqualTo(2);
        assertThat(err.toString())
                .startsWith("egpu scheduler: " + none + ": the file has no version; add the line version: v1");

        err.getBuffer().setLength(0);
        Path v2 = file("version: v2\ncontroller: {}\n");
        assertThat(run(Map.of(), "controller", "--config", v2.toString())).isEqualTo(2);
        assertThat(err.toString())
                .startsWith("egpu controller: " + v2 + ": version v2 is not one this egpu reads; write version: v1");
    }

    @Test
    void aValueOfTheWrongTypeNamesTheKeyItCameFrom() throws IOException {
        Path f = file("version: v1\nnodeAgent:\n  replicas: many\n");

        assertThat(run(Map.of(), "node-agent", "--config", f.toString(), "--node-name", "gpu-1"))
                .isEqualTo(2);
        assertThat(err.toString())
                .startsWith("egpu node-agent: ")
                .contains("--replicas", "'many'", "(from " + f + ", key nodeAgent.replicas)");
    }

    @Test
    void aValueOfTheWrongTypeInTheEnvironmentNamesTheVariable() {
        assertThat(run(Map.of("EGPU_HOLD_PERIOD", "thirty"), "scheduler")).isEqualTo(2);
        assertThat(err.toString())
                .startsWith("egpu scheduler: ")
                .contains("--hold-period", "'thirty'", "(from environment variable EGPU_HOLD_PERIOD)");
    }

    @Test
    void aSwitchThatIsNeitherTrueNorFalseIsRefusedNotTakenAsFalse() throws IOException {
        Path f = file("version: v1\ncontroller:\n  webhook: maybe\n");

        assertThat(run(Map.of(), "controller", "--config", f.toString())).isEqualTo(2);
        assertThat(err.toString())
                .startsWith("egpu controller: webhook must be true or false, was \"maybe\" (from " + f
                        + ", key controller.webhook)");
    }

    @Test
    void aSettingThatIsWrongFromTheFileIsCheckedWithTheRest() throws IOException {
        Path f = file("version: v1\nscheduler:\n  holdPeriod: PT0S\n");

        assertThat(run(Map.of(), "scheduler", "--config", f.toString())).isEqualTo(2);
        assertThat(err.toString()).startsWith("egpu scheduler: hold (--hold-period) must be at least PT1S, was PT0S");
    }

    @Test
    void everyOptionOfAComponentHasAKeyAndAVariableNamedAfterIt() {
        var commands = ReferenceDocs.subcommands();

        assertThat(ConfigSource.keys(commands.get("node-agent")))
                .contains("nodeName", "mpsLayout", "compatibility", "ignoredXids", "metricsListen", "logLevel")
                .doesNotContain("config", "help", "version", "noCompatibility");
        assertThat(ConfigSource.keys(commands.get("controller"))).contains("webhook", "leaderElection");
        assertThat(ConfigSource.keys(commands.get("scheduler")))
                .contains("policy", "decideInFilter", "holdPeriod", "gpuMemoryResource", "tlsCert");
        assertThat(ConfigSource.env("mpsContextReserveMib")).isEqualTo("EGPU_MPS_CONTEXT_RESERVE_MIB");
    }

    @Test
    void aSectionStandsForTheFlagsItsKeysAreNamedAfter() {
        String file = """
                version: v1
                nodeAgent:
                  isolation: mps
                  compatibility: false
                  mpsHostNamespaces: true
                  ignoredXids: [13, 31]
                  replicas: 8
                scheduler:
                  decideInFilter: false
                controller:
                  webhook: true
                """;

        assertThat(Egpu.flagsOf("node-agent", file))
                .containsExactly(
                        "--isolation",
                        "mps",
                        "--no-compatibility",
                        "--mps-host-namespaces",
                        "--ignored-xids",
                        "13,31",
                        "--replicas",
                        "8");
        assertThat(Egpu.flagsOf("scheduler", file)).containsExactly("--no-decide-in-filter");
        assertThat(Egpu.flagsOf("controller", file)).isEmpty();
    }
}
