package io.elasticgpu.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * The lab's one program, every verb (the local cluster's too): {@code --help} works, and bad input stops it before
 * anything starts with exit code 2 and a message naming the option, as {@code egpu} does. A bad option (unknown,
 * missing its value, of the wrong type) gets picocli's message and the usage; a value out of range gets
 * {@code bench/run VERB: <message>}.
 */
class LabTest {

    /** Every verb; {@link #everyVerbIsInTheTables()} keeps this list whole. */
    private static final List<String> VERBS = List.of(
            "speed",
            "reproduce",
            "preemption",
            "extender",
            "node-agent",
            "dra-prepare",
            "cluster-replay",
            "arena",
            "soak",
            "node-soak",
            "gpu-isolation",
            "trace-variant",
            "up",
            "status",
            "down",
            "demo");

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = Lab.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    static Stream<String> verbs() {
        return VERBS.stream();
    }

    @ParameterizedTest(name = "{0} --help")
    @MethodSource("verbs")
    void everyVerbHasHelp(String verb) {
        assertThat(run(verb, "--help")).isZero();
        // the verb's one-line header (what the program's --help lists it with), then its usage
        assertThat(out.toString().lines().skip(1).findFirst())
                .hasValueSatisfying(usage -> assertThat(usage).startsWith("Usage: bench/run " + verb + " [-hV]"));
        assertThat(out.toString()).contains("-h, --help").contains("-V, --version");
        assertThat(err.toString()).isEmpty();
    }

    /**
     * Each case: the arguments ({@code TRACE} stands for a pod list that exists, so that the case fails on the option
     * it is about), and what the error must say. None of them gets as far as starting anything.
     */
    static Stream<Arguments> badOptions() {
        return Stream.of(
                // unknown options, named by picocli
                bad("Unknown option: '--frobnicate'", "speed", "--frobnicate"),
                bad("Unknown option: '--frobnicate'", "reproduce", "--frobnicate"),
                bad("Unknown option: '--frobnicate'", "cluster-replay", "--frobnicate"),
                bad("Unknown option: '--frobnicate'", "gpu-isolation", "--frobnicate"),
                // an option without its value
                bad("Missing required parameter for option '--json' (FILE)", "dra-prepare", "--json"),
                bad("Missing required parameter for option '--root' (DIR)", "gpu-isolation", "--root"),
                // a value of the wrong type
                bad(
                        "Invalid value for positional parameter at index 0 (ALLOCATIONS): 'many' is not an int",
                        "node-agent",
                        "many"),
                bad(
                        "Invalid value for option '--seed': 'forty-two' is not a long",
                        "cluster-replay",
                        "--seed",
                        "forty-two"),
                bad("Invalid value for option '--nodes': 'ten' is not an int", "soak", "--nodes", "ten"),
                bad("bench/run preemption: --seeds must be a number in 1..100, was 0", "preemption", "--seeds", "0"),
                // a value out of range or not one of the choices, checked before anything runs
                bad(
                        "bench/run extender: NODES,NODES: fleet sizes must be positive whole numbers separated by "
                                + "commas,"
                                + " e.g. 1000,5000; got 1000,x",
                        "extender",
                        "1000,x"),
                bad(
                        "bench/run extender: --policy: unknown policy \"tetris\"; choose one of: elastic, binpack,"
                                + " spread, random, dot-product, gpu-clustering, gpu-packing, best-fit, fgd,"
                                + " elastic-lookahead",
                        "extender",
                        "--policy",
                        "tetris"),
                bad("bench/run node-agent: ALLOCATIONS must be a number in 1..10000000, was 0", "node-agent", "0"),
                bad("bench/run dra-prepare: CLAIMS must be a number in 10..9999999, was 5", "dra-prepare", "5"),
                bad(
                        "bench/run cluster-replay: --cut must be a number in 1..130, was 500",
                        "cluster-replay",
                        "--trace",
                        "TRACE",
                        "--cut",
                        "500"),
                bad(
                        "bench/run cluster-replay: --api must be device-plugin or dra, was \"cdi\"",
                        "cluster-replay",
                        "--trace",
                        "TRACE",
                        "--api",
                        "cdi"),
                bad(
                        "bench/run arena: --policy is cluster-replay's; the arena gives each contender its own "
                                + "scheduler"
                                + " and resource names (choose them with --contenders)",
                        "arena",
                        "--trace",
                        "TRACE",
                        "--policy",
                        "fgd"),
                bad(
                        "bench/run arena: --contenders names one twice: [elastic, elastic]",
                        "arena",
                        "--trace",
                        "TRACE",
                        "--contenders",
                        "elastic,elastic"),
                bad(
                        "bench/run soak: --nodes must be a number in 3..5000, was 2",
                        "soak",
                        "--trace",
                        "TRACE",
                        "--nodes",
                        "2"),
                bad(
                        "bench/run node-soak: --pods must be a number in 10..1000000, was 5",
                        "node-soak",
                        "--trace",
                        "TRACE",
                        "--pods",
                        "5"),
                bad(
                        "bench/run node-soak: --trace: no such file nope.csv (the default is ../shared's openb trace)",
                        "node-soak",
                        "--trace",
                        "nope.csv"),
                bad(
                        "bench/run trace-variant: --gpu-spec-share must be a number in 0..1, was 1.5",
                        "trace-variant",
                        "--from",
                        "TRACE",
                        "--gpu-spec-share",
                        "1.5",
                        "--out",
                        "x.csv"),
                bad(
                        "bench/run trace-variant: --mix must be production, capacity or named:MODELS, was \"all\"",
                        "trace-variant",
                        "--from",
                        "TRACE",
                        "--gpu-spec-share",
                        "0.2",
                        "--mix",
                        "all",
                        "--out",
                        "x.csv"),
                // the local cluster's verbs
                bad("Invalid value for option '--nodes': 'six' is not an int", "up", "--nodes", "six"),
                bad("bench/run up: --nodes must be 0..5000, was 6000", "up", "--nodes", "6000"),
                bad("Unknown option: '--nodes'", "status", "--nodes"),
                bad("Missing required parameter for option '--dir' (DIR)", "down", "--dir"),
                bad("bench/run demo: --nodes must be 1..200, was 0", "demo", "--nodes", "0"),
                bad(
                        "Invalid value for option '--dashboard-port': 'http' is not an int",
                        "demo",
                        "--dashboard-port",
                        "http"));
    }

    private static Arguments bad(String message, String... args) {
        return Arguments.of(String.join(" ", args), message, args);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badOptions")
    void aBadOptionExitsWithTwoAndANameForIt(String name, String message, String[] args) throws Exception {
        Path trace = Files.writeString(dir.resolve("pods.csv"), "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n");
        String[] given = Arrays.stream(args)
                .map(a -> a.equals("TRACE") ? trace.toString() : a)
                .toArray(String[]::new);

        assertThat(run(given)).as(err.toString()).isEqualTo(2);
        assertThat(err.toString().lines().findFirst()).as(err.toString()).hasValue(message);
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void everyVerbIsInTheTables() {
        List<String> verbs = Lab.commandLine().getSubcommands().keySet().stream()
                .filter(v -> !v.equals("help"))
                .toList();
        assertThat(verbs).containsExactlyInAnyOrderElementsOf(VERBS);
        assertThat(badOptions().map(a -> ((String[]) a.get()[2])[0]).distinct())
                .containsExactlyInAnyOrderElementsOf(VERBS);
    }

    @Test
    void theProgramsHelpListsTheVerbsByGroup() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString())
                .startsWith("Usage: bench/run [-hV] [COMMAND]")
                .contains("%nBenchmarks:%n  speed ".formatted())
                .contains("%nOn the real control plane:%n  cluster-replay ".formatted())
                .contains("%nOn a GPU host:%n  gpu-isolation ".formatted())
                .contains("%nLocal cluster:%n  up ".formatted())
                .contains("%nCommands:%n  help ".formatted());
    }

    @Test
    void noVerbOrAnUnknownOneExitsWithTwo() {
        assertThat(run()).isEqualTo(2);
        assertThat(err.toString()).startsWith("Missing required subcommand").contains("Usage: bench/run");
        err.getBuffer().setLength(0);
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(err.toString()).startsWith("Unmatched argument at index 0: 'frobnicate'");
    }

    @Test
    void theLauncherNamesTheProgram() {
        String before = System.getProperty(Lab.NAME_PROPERTY);
        System.setProperty(Lab.NAME_PROPERTY, "e2e/bin/cluster");
        try {
            assertThat(run("soak", "--nodes", "2", "--trace", "nope.csv")).isEqualTo(2);
            assertThat(err.toString()).startsWith("e2e/bin/cluster soak: ");
        } finally {
            if (before == null) {
                System.clearProperty(Lab.NAME_PROPERTY);
            } else {
                System.setProperty(Lab.NAME_PROPERTY, before);
            }
        }
    }
}
