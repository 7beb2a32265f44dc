package io.elasticgpu.cli;

import io.elasticgpu.simulator.trace.TraceFormatException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    /**
     * The flags that a component's section of a configuration file stands for
     * ({@code docs/reference/configuration.md}), for checks that compare a rendered file with the flags it replaces.
     *
     * @param command {@code scheduler}, {@code node-agent} or {@code controller}
     * @param file    the file's text, checked as the component checks it
     * @throws IllegalArgumentException for a file the component would refuse
     */
    public static List<String> flagsOf(String command, String file) {
        Map<String, Object> section =
                ConfigFile.parse(java.nio.file.Path.of("(text)"), file).sectionOf(command);
        return ConfigSource.flags(
                commandLine(Map.of()).getSubcommands().get(command).getCommandSpec(), section);
    }

    static CommandLine commandLine() {
        return commandLine(System.getenv());
    }

    /** {@code egpu}, its components' settings read under their flags from {@code environment} and their files. */
    static CommandLine commandLine(Map<String, String> environment) {
        CommandLine cli = new CommandLine(new Egpu());
        ConfigFile.COMMANDS.forEach(name -> configured(cli.getSubcommands().get(name), environment));
        CommandLine.IParameterExceptionHandler shown = cli.getParameterExceptionHandler();
        cli.setParameterExceptionHandler((e, args) -> parameterError(e, args, shown));
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

    /**
     * {@code command} reading each setting not given as a flag from {@code environment}, then its configuration file
     * ({@link ConfigSource}).
     */
    static CommandLine configured(CommandLine command, Map<String, String> environment) {
        command.setDefaultValueProvider(new ConfigSource(command.getCommandSpec(), environment));
        return command;
    }

    /**
     * A configuration file that is wrong ({@link ConfigFile}, {@link ConfigSource}) is said in one line, and a value of
     * the wrong type from the environment or the file is named with where it came from; other mistakes as picocli says
     * them, with the usage.
     */
    private static int parameterError(
            CommandLine.ParameterException e, String[] args, CommandLine.IParameterExceptionHandler shown)
            throws Exception {
        CommandLine command = e.getCommandLine();
        Optional<String> origin =
                command.getDefaultValueProvider() instanceof ConfigSource source && e.getArgSpec() != null
                        ? source.origin(e.getArgSpec())
                        : Optional.empty();
        Optional<String> fileMistake = Optional.empty();
        for (Throwable t = e.getCause(); t != null && fileMistake.isEmpty(); t = t.getCause()) {
            if (t instanceof ConfigFile.Mistake bad) {
                fileMistake = Optional.ofNullable(bad.getMessage());
            }
        }
        if (origin.isEmpty() && fileMistake.isEmpty()) {
            return shown.handleParseException(e, args);
        }
        String message = origin.map(o -> e.getMessage().lines().findFirst().orElse("") + " (from " + o + ")")
                .orElseGet(fileMistake::orElseThrow);
        command.getErr().println("egpu " + command.getCommandName() + ": " + message);
        return BAD_INPUT;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Egpu.class.getPackage().getImplementationVersion();
            return new String[] {"egpu " + (version == null ? "development build" : version)};
        }
    }
}
