package io.elasticgpu.bench;

import io.elasticgpu.localcluster.DownCommand;
import io.elasticgpu.localcluster.StatusCommand;
import io.elasticgpu.localcluster.UpCommand;
import io.elasticgpu.localcluster.demo.DemoCommand;
import io.elasticgpu.node.discovery.DiscoveryException;
import io.elasticgpu.simulator.trace.TraceFormatException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * The lab's one program: the benchmarks, soaks and GPU check of this module, and the local cluster's verbs of module
 * {@code localcluster} ({@code up}, {@code status}, {@code down}, {@code demo}). {@code bench/run VERB} and
 * {@code e2e/bin/cluster VERB} both run it (the launchers name it with {@value #NAME_PROPERTY}, so that usage and
 * errors say what a person typed). It reports bad input as {@code egpu} does: picocli's message and the usage for a
 * bad option, {@code <program> <verb>: <message>} for a bad value, with the same exit codes.
 */
@Command(
        name = "bench/run",
        mixinStandardHelpOptions = true,
        versionProvider = Lab.Version.class,
        description = "The Elastic GPU lab: benchmarks against named baselines, replays and soaks on the real control"
                + " plane, the GPU isolation check, and a local cluster for people. VERB --help shows a "
                + "verb's options.",
        commandListHeading = "",
        subcommands = {
            SpeedCommand.class,
            ReproduceCommand.class,
            PreemptionCommand.class,
            ExtenderCommand.class,
            NodeAgentBenchmarkCommand.class,
            DraPrepareCommand.class,
            ClusterReplayCommand.class,
            ArenaCommand.class,
            SoakCommand.class,
            NodeSoakCommand.class,
            GpuIsolationCommand.class,
            TraceVariantCommand.class,
            UpCommand.class,
            StatusCommand.class,
            DownCommand.class,
            DemoCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Lab {

    /** Exit code for input a person must fix: a bad option, an unreadable or malformed file (as {@code egpu}). */
    static final int BAD_INPUT = 2;
    /** Exit code when the machine lacks what the verb needs (no GPU driver, no Go); the message says what. */
    static final int UNAVAILABLE = 3;
    /** The program's name in usage and errors: the launcher that ran it. */
    public static final String NAME_PROPERTY = "egpu.lab.name";
    /** The openb trace beside the checkout ({@code ../shared}, or {@code -Degpu.shared=DIR}), as a picocli default. */
    static final String SHARED = "${sys:egpu.shared:-../shared}";

    static final String DEFAULT_TRACE = SHARED + "/traces/openb/openb_pod_list_default.csv";

    /** The verbs as {@code --help} groups them; anything not named here is listed last. */
    private static final Map<String, List<String>> GROUPS = groups();

    private Lab() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The program, with its error handling and help layout, ready to {@code execute}. */
    public static CommandLine commandLine() {
        CommandLine cli = configure(new CommandLine(new Lab()));
        cli.setCommandName(System.getProperty(NAME_PROPERTY, "bench/run"));
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            String prefix = commandLine.getCommandSpec().qualifiedName() + ": ";
            if (e instanceof IllegalArgumentException
                    || e instanceof TraceFormatException
                    || e instanceof UncheckedIOException) {
                commandLine.getErr().println(prefix + e.getMessage());
                return BAD_INPUT;
            }
            if (e instanceof DiscoveryException) {
                commandLine.getErr().println(prefix + e.getMessage());
                return UNAVAILABLE;
            }
            if (e instanceof IllegalStateException) {
                // A run that could not go on (a component that did not start, a cluster already up): the message
                // says why and where the logs are.
                commandLine.getErr().println(prefix + e.getMessage());
                return 1;
            }
            throw e;
        });
        cli.getHelpSectionMap().put(UsageMessageSpec.SECTION_KEY_COMMAND_LIST, Lab::groupedVerbs);
        return cli;
    }

    /**
     * Parses {@code args} into {@code command} as the program would for its verb, without running it: for tests
     * that run a verb's machinery with the options a person would give.
     *
     * @throws CommandLine.ParameterException for an option the verb does not take or a value of the wrong type
     */
    public static <T> T parse(T command, String... args) {
        configure(new CommandLine(command)).parseArgs(args);
        return command;
    }

    /**
     * An option's value may look like an option ({@code --extender-flag --policy=binpack}), as the verbs' hand-written
     * parsers took it before.
     */
    private static CommandLine configure(CommandLine cli) {
        return cli.setAllowOptionsAsOptionParameters(true);
    }

    private static Map<String, List<String>> groups() {
        Map<String, List<String>> groups = new LinkedHashMap<>();
        groups.put("Benchmarks", List.of("speed", "reproduce", "preemption", "extender", "node-agent", "dra-prepare"));
        groups.put("On the real control plane", List.of("cluster-replay", "arena", "soak", "node-soak"));
        groups.put("On a GPU host", List.of("gpu-isolation"));
        groups.put("Traces", List.of("trace-variant"));
        groups.put("Local cluster", List.of("up", "status", "down", "demo"));
        return groups;
    }

    private static String groupedVerbs(Help help) {
        Map<String, Help> verbs = help.subcommands();
        Map<String, Help> rest = new LinkedHashMap<>(verbs);
        StringBuilder out = new StringBuilder();
        GROUPS.forEach((title, names) -> {
            Map<String, Help> group = new LinkedHashMap<>();
            names.stream().filter(verbs::containsKey).forEach(name -> group.put(name, rest.remove(name)));
            if (!group.isEmpty()) {
                out.append("%n%s:%n".formatted(title)).append(help.commandList(group));
            }
        });
        if (!rest.isEmpty()) {
            out.append("%nCommands:%n".formatted()).append(help.commandList(rest));
        }
        return out.toString();
    }

    /**
     * {@code value} when it is within {@code min..max}.
     *
     * @throws IllegalArgumentException naming the option, the range and the value
     */
    static double within(String option, double value, double min, double max) {
        if (!(value >= min && value <= max)) {
            throw new IllegalArgumentException(
                    "%s must be a number in %s..%s, was %s".formatted(option, plain(min), plain(max), plain(value)));
        }
        return value;
    }

    /** {@link #within(String, double, double, double)} for whole numbers. */
    static long within(String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    "%s must be a number in %d..%d, was %d".formatted(option, min, max, value));
        }
        return value;
    }

    /** {@link #within(String, long, long, long)} for {@code int} options. */
    static int within(String option, int value, int min, int max) {
        return (int) within(option, (long) value, min, max);
    }

    /**
     * {@code file}, when it is a regular file.
     *
     * @throws IllegalArgumentException naming the option and the file
     */
    static Path existing(String option, Path file) {
        if (file != null && !Files.isRegularFile(file)) {
            throw new IllegalArgumentException(option + ": no such file " + file);
        }
        return file;
    }

    /** The openb trace an option names, checked; its default is the trace in {@code ../shared}. */
    static Path trace(String option, Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(
                    option + ": no such file " + file + " (the default is ../shared's openb trace)");
        }
        return file;
    }

    private static String plain(double v) {
        return Double.isFinite(v) ? BigDecimal.valueOf(v).stripTrailingZeros().toPlainString() : Double.toString(v);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Lab.class.getPackage().getImplementationVersion();
            return new String[] {"Elastic GPU lab " + (version == null ? "development build" : version)};
        }
    }
}
