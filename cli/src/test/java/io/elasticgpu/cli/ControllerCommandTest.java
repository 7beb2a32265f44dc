package io.elasticgpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Optional;
import org.junit.jupiter.api.Test;
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
}
