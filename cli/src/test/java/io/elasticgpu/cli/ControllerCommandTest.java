package io.elasticgpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code egpu controller} refuses to start without the CRDs and says how to install them. */
class ControllerCommandTest {

    @Test
    void withoutTheCrdsItExitsWith3AndSaysHowToInstallThem() {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new ControllerCommand(
                kubeconfig -> null,
                client -> Optional.of(
                        "the ElasticGPU CRDs are not installed (missing: elasticgpus.elasticgpu.io): kubectl "
                                + "apply -f x")));
        cli.setErr(new PrintWriter(err));

        int code = cli.execute("--no-leader-election");

        assertThat(code).isEqualTo(3);
        assertThat(err.toString())
                .isEqualTo("egpu controller: the ElasticGPU CRDs are not installed "
                        + "(missing: elasticgpus.elasticgpu.io): kubectl apply -f x" + System.lineSeparator());
    }

    @Test
    void theCommandIsRegisteredAndDocumentsItsOptions() {
        String usage = Egpu.commandLine().getSubcommands().get("controller").getUsageMessage();

        assertThat(usage).contains("--kubeconfig=FILE", "--namespace-for-lease=NS", "--no-leader-election");
    }

    @Test
    void anOperatorsModelTableReachesTheDashboardAndTheWebhooksMpsCheck(@TempDir Path dir) throws Exception {
        Path table = dir.resolve("models.csv");
        Files.writeString(
                table, io.elasticgpu.core.model.ModelTable.HEADER + "\nG2,,20,-,100,100,-,https://internal\n");
        ControllerCommand command = new ControllerCommand(k -> null, c -> Optional.empty());
        new CommandLine(command).parseArgs("--model-table", table.toString(), "--isolation", "mps");

        assertThat(command.config().models().find("G2")).isPresent();
        assertThat(command.shares().models().find("G2")).isPresent();
        assertThat(command.config().models().find("NVIDIA A100-SXM4-80GB")).isPresent(); // the shipped rows stay
    }

    @Test
    void aMalformedModelTableStopsItWithTwoNamingTheLineModelAndField(@TempDir Path dir) throws Exception {
        Path table = dir.resolve("models.csv");
        Files.writeString(table, io.elasticgpu.core.model.ModelTable.HEADER + "\nG2,,20,-,fast,100,-,https://x\n");
        StringWriter err = new StringWriter();
        CommandLine cli = Egpu.commandLine();
        cli.setErr(new PrintWriter(err));

        assertThat(cli.execute("controller", "--model-table", table.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("line 2 (model G2): field fp16 is \"fast\"");
    }
}
