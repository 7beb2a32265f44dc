package io.elasticgpu.cli;

import io.elasticgpu.simulator.trace.TraceFormatException;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code egpu} entry point: one jar, one subcommand per component. */
@Command(
        name = "egpu",
        mixinStandardHelpOptions = true,
        versionProvider = Egpu.Version.class,
        description = "Elastic GPU: GPU sharing and topology-aware GPU scheduling for Kubernetes.",
        subcommands = {
            SimulateCommand.class,
            SchedulerCommand.class,
            NodeAgentCommand.class,
            InspectCommand.class,
            ControllerCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Egpu {

    /** Exit code for input a person must fix: a bad option, an unreadable or malformed file. */
    static final int BAD_INPUT = 2;
    /** Exit code when the machine lacks what the command needs (no GPU driver, say); the message says what. */
    static final int UNAVAILABLE = 3;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Egpu());
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof IllegalArgumentException
                    || e instanceof TraceFormatException
                    || e instanceof UncheckedIOException) {
                commandLine.getErr().println("egpu " + commandLine.getCommandName() + ": " + e.getMessage());
                return BAD_INPUT;
            }
            if (e instanceof io.elasticgpu.node.discovery.DiscoveryException) {
                commandLine.getErr().println("egpu " + commandLine.getCommandName() + ": " + e.getMessage());
                return UNAVAILABLE;
            }
            throw e;
        });
        return cli;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Egpu.class.getPackage().getImplementationVersion();
            return new String[] {"egpu " + (version == null ? "development build" : version)};
        }
    }
}
