package io.elasticgpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code egpu node-agent --metrics-listen}: a bad value stops the agent before it starts, saying what to write. */
class NodeAgentCommandTest {

    @Test
    void aMetricsAddressWithoutAPortExitsWith2AndSaysWhatToWrite() {
        StringWriter err = new StringWriter();
        CommandLine cli = Egpu.commandLine();
        cli.setErr(new PrintWriter(err));

        int code = cli.execute("node-agent", "--node-name", "gpu-1", "--metrics-listen", "9401");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString())
                .contains(
                        "egpu node-agent: metricsListen (--metrics-listen) must be host:port",
                        "was \"9401\"",
                        "or off to serve nothing");
    }

    @Test
    void theOptionIsDocumentedWithItsDefault() {
        String usage = Egpu.commandLine().getSubcommands().get("node-agent").getUsageMessage();

        assertThat(usage).contains("--metrics-listen=HOST:PORT|off", "default 0.0.0.0:9401");
    }

    @Test
    void anUnknownApiExitsWith2BeforeAnythingStarts() {
        StringWriter err = new StringWriter();
        CommandLine cli = Egpu.commandLine();
        cli.setErr(new PrintWriter(err));

        int code = cli.execute("node-agent", "--node-name", "gpu-1", "--metrics-listen", "off", "--api", "csi");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--api must be device-plugin or dra, was csi");
    }

    @Test
    void theApiDefaultsToTheDevicePlugin() {
        NodeAgentCommand command = new NodeAgentCommand();
        new CommandLine(command).parseArgs("--node-name", "gpu-1");

        assertThat(command.dra()).isFalse();
        new CommandLine(command).parseArgs("--node-name", "gpu-1", "--api", "dra");
        assertThat(command.dra()).isTrue();
    }
}
