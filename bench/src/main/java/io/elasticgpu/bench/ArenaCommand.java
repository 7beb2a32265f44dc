package io.elasticgpu.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.elasticgpu.bench.arena.Arena;
import io.elasticgpu.bench.arena.ArenaOptions;
import io.elasticgpu.bench.arena.ArenaReport;
import io.elasticgpu.bench.arena.Contender;
import io.elasticgpu.bench.arena.Standing;
import io.elasticgpu.bench.cluster.ReplayOptions;
import io.elasticgpu.core.policy.Policies;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code arena}: the options, each contender's run, the table, the chart and the JSON; exit 2 for bad input, 3 for a
 * contender that cannot be run here (Go or HAMi's source missing), 1 when a contender over-commits a card.
 */
@Command(
        name = "arena",
        mixinStandardHelpOptions = true,
        header = "The trace through Elastic GPU, HAMi's scheduler and whole cards.",
        sortOptions = false,
        description = "The same trace, node list and pod order through each contender, each in a fresh control plane,"
                + " audited from its own records; a table and the allocation-against-arrival curves.%nContenders:"
                + " " + Policies.DEFAULT + " (our default policy), elastic, fgd (or another of our policies;"
                + " POLICY-hami-names gives it HAMi's pods),"
                + " hami-binpack-spread (HAMi's default), hami-binpack-binpack (any hami-NODE-GPU of binpack/spread),"
                + " no-sharing. HAMi's scheduler is built with Go (bench/bin/build-hami).%nWith --report, the table "
                + "(and"
                + " --chart) of contenders measured in earlier runs instead.")
public final class ArenaCommand implements Callable<Integer> {

    /** cluster-replay's options that make no sense here: each contender brings its own scheduler and names. */
    private static final List<String> NOT_HERE =
            List.of("--policy", "--scheduler-config", "--extender-flag", "--api", "--no-baseline");

    @Spec
    CommandSpec spec;

    @Option(
            names = "--contenders",
            paramLabel = "NAME,NAME,...",
            order = 0,
            description = "Who runs, in this order (default: all, ${DEFAULT-VALUE}).",
            defaultValue = Policies.DEFAULT + ",elastic,fgd,hami-binpack-spread,hami-binpack-binpack,no-sharing")
    String contenders;

    @Mixin
    ReplayInput input;

    @Option(
            names = "--json",
            paramLabel = "FILE",
            order = 20,
            description = "Also write one object per contender as JSON.")
    Path json;

    @Option(
            names = "--chart",
            paramLabel = "FILE.svg|FILE.png",
            order = 21,
            description = "Also draw the allocation-against-arrival curves.")
    Path chart;

    @Option(
            names = "--report",
            paramLabel = "A.json[,B.json...]",
            split = ",",
            order = 22,
            description = "Table earlier runs' JSON instead of running: a contender run again on its own joins the"
                    + " others' table. Takes --chart only.")
    List<Path> report;

    /** cluster-replay's, taken only to be refused with the reason ({@link #refuseReplayOnly}), not as unknown. */
    @Option(
            names = {"--policy", "--scheduler-config", "--extender-flag", "--api"},
            hidden = true)
    List<String> replayOnly;

    @Option(names = "--no-baseline", hidden = true)
    boolean noBaseline;

    @Option(names = "--warm-extender", hidden = true)
    int warmExtender;

    /**
     * What was asked, checked.
     *
     * @throws IllegalArgumentException naming the option to change
     */
    public ArenaOptions options() {
        refuseReplayOnly();
        List<String> names = Arrays.stream(contenders.split(","))
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .toList();
        if (names.isEmpty()) {
            throw new IllegalArgumentException(
                    "--contenders names none; known: " + String.join(", ", ArenaOptions.DEFAULT_CONTENDERS));
        }
        if (names.stream().distinct().count() < names.size()) {
            throw new IllegalArgumentException("--contenders names one twice: " + names);
        }
        input.check();
        ReplayOptions replay = new ReplayOptions(
                input.trace,
                input.nodes,
                input.events,
                input.seed,
                input.cut,
                "elastic",
                input.maxNodes,
                null,
                input.clients,
                false,
                !input.noGates,
                List.of(),
                List.of(),
                0,
                false,
                null);
        return new ArenaOptions(replay, names.stream().map(Contender::of).toList(), json, chart);
    }

    private void refuseReplayOnly() {
        var parsed = spec.commandLine().getParseResult();
        if (parsed.hasMatchedOption("--warm-extender")) {
            throw new IllegalArgumentException("--warm-extender is a cluster-replay option: the arena measures every"
                    + " contender from a fresh start");
        }
        parsed.originalArgs().stream()
                .map(arg -> arg.split("=", 2)[0])
                .filter(NOT_HERE::contains)
                .findFirst()
                .ifPresent(flag -> {
                    throw new IllegalArgumentException(flag + " is cluster-replay's; the arena gives each contender its"
                            + " own scheduler and resource names (choose them with --contenders)");
                });
    }

    @Override
    public Integer call() throws Exception {
        if (report != null) {
            return report();
        }
        ArenaOptions options = options();
        Path repository = Path.of("").toAbsolutePath();
        Path work = repository
                .resolve("bench/target/arena")
                .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        List<Standing> standings;
        try {
            standings = Arena.run(options, repository, work, System.err);
        } catch (IllegalStateException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("HAMi's scheduler cannot be built")) {
                spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
                return Lab.UNAVAILABLE;
            }
            throw e;
        }
        System.out.print(ArenaReport.table(standings));
        System.out.print(ArenaReport.curveTable(standings));
        System.err.println("arena: logs in " + work);
        if (options.json() != null) {
            new ObjectMapper()
                    .enable(SerializationFeature.INDENT_OUTPUT)
                    .writeValue(options.json().toFile(), standings);
        }
        if (options.chart() != null) {
            ArenaReport.chart(options.chart(), standings);
        }
        return verdict(standings);
    }

    /** The table (and chart) of contenders measured in earlier runs, in the order given. */
    private int report() throws Exception {
        List<String> others = spec.commandLine().getParseResult().matchedOptions().stream()
                .map(OptionSpec::longestName)
                .filter(n -> !n.equals("--report") && !n.equals("--chart"))
                .toList();
        if (!others.isEmpty()) {
            throw new IllegalArgumentException("--report tables earlier runs and takes --chart only, not " + others);
        }
        List<Standing> standings = new ArrayList<>();
        for (Path file : report) {
            standings.addAll(List.of(
                    new ObjectMapper().readValue(Lab.existing("--report", file).toFile(), Standing[].class)));
        }
        System.out.print(ArenaReport.table(standings));
        System.out.print(ArenaReport.curveTable(standings));
        if (chart != null) {
            ArenaReport.chart(chart, standings);
        }
        return verdict(standings);
    }

    private static int verdict(List<Standing> standings) {
        boolean over = standings.stream().anyMatch(s -> s.overCommittedCards() > 0 || s.unaccounted() > 0);
        if (over) {
            System.err.println(
                    "arena: a contender put cards over capacity or lost track of pods (see the table): a finding"
                            + " about it");
        }
        return over ? 1 : 0;
    }
}
