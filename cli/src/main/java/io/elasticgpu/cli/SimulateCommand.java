package io.elasticgpu.cli;

import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.PolicyName;
import io.elasticgpu.simulator.bound.Ceiling;
import io.elasticgpu.simulator.replay.Experiment;
import io.elasticgpu.simulator.replay.RecordedRun;
import io.elasticgpu.simulator.report.Chart;
import io.elasticgpu.simulator.report.JsonReport;
import io.elasticgpu.simulator.report.PolicyReport;
import io.elasticgpu.simulator.report.PublishedResults;
import io.elasticgpu.simulator.report.RunMetrics;
import io.elasticgpu.simulator.report.TableReport;
import io.elasticgpu.simulator.trace.OpenbTrace;
import io.elasticgpu.simulator.trace.SyntheticTrace;
import io.elasticgpu.simulator.trace.Trace;
import io.elasticgpu.simulator.trace.TracePod;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.LongStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code egpu simulate}: replays a trace, or the built-in synthetic cluster, and reports placement quality. */
@Command(
        name = "simulate",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Replay a cluster trace through the placement engine and report allocation ratio,",
            "fragmentation and failures per policy (the FGD paper's protocol).",
            "Without --trace it replays a built-in synthetic cluster and workload."
        })
final class SimulateCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(
            names = "--trace",
            paramLabel = "POD_LIST.csv",
            description = "An openb pod list, e.g. ../shared/traces/openb/openb_pod_list_default.csv.")
    Path trace;

    @Option(
            names = "--nodes",
            paramLabel = "NODE_LIST.csv",
            description = "The node list (default: " + OpenbTrace.GPU_NODE_LIST + " beside the pod list).")
    Path nodes;

    @Option(
            names = "--policy",
            paramLabel = "NAMES",
            defaultValue = Policies.DEFAULT,
            description = "A policy or a comma list; 'paper' is the paper's six, 'all' every policy. One of: "
                    + "elastic, binpack, spread, random, dot-product, gpu-clustering, gpu-packing, best-fit, fgd,"
                    + " elastic-lookahead."
                    + " Default: ${DEFAULT-VALUE}.")
    String policy;

    @Option(
            names = "--seeds",
            paramLabel = "SEEDS",
            defaultValue = "42-51",
            description = "Seeds: a range 42-51 or a comma list 42,43. Default: ${DEFAULT-VALUE}.")
    String seeds;

    @Option(
            names = "--inflation",
            paramLabel = "RATIO",
            defaultValue = "1.3",
            description = "Pods arrive until they ask this multiple of the cluster's GPU. Default: ${DEFAULT-VALUE}.")
    double inflation;

    @Option(
            names = "--replay-events",
            paramLabel = "EVENTS.csv",
            description = "Replay the pod order and node priority of a recorded run instead of seeded ones,"
                    + " and count the decisions equal to the recorded ones.")
    Path replayEvents;

    @Option(
            names = "--format",
            paramLabel = "table|json",
            defaultValue = "table",
            description = "Output: a table (default) or JSON, one object per policy.")
    String format;

    @Option(
            names = "--chart",
            paramLabel = "FILE.png|FILE.svg",
            description = "Also draw allocation ratio against arrived workload, one line per policy.")
    Path chart;

    @Option(
            names = "--anchor",
            paramLabel = "RESULTS.csv",
            description = "The FGD artifact's published results, drawn on the chart and shown beside ours.")
    Path anchor;

    @Option(
            names = "--tflops",
            paramLabel = "PRECISION",
            description = "Compare the trace's sharing pods asked as fixed card shares with the same pods asked in"
                    + " TFLOPS of PRECISION (fp32, tf32, fp16, bf16, int8) on each seed with --policy; prints JSON.")
    String tflops;

    @Option(
            names = "--mig",
            paramLabel = "MODEL",
            arity = "0..1",
            fallbackValue = "NVIDIA H100 80GB HBM3",
            description = "Compare MIG's fixed partitions with shares on each seed: every card a card of MODEL in MIG"
                    + " mode (alone: ${FALLBACK-VALUE}), each pod's ask on a card the smallest profile that holds it,"
                    + " placed keeping the largest profiles (mig) and first fit (mig-first-fit), beside each --policy"
                    + " on shares; prints JSON.")
    String mig;

    @Option(
            names = "--model-table",
            paramLabel = "FILE.csv",
            description = "Card models' peak TFLOPS that extend and override the shipped table (rows as in"
                    + " gpu-models.csv: name,aliases,fp32,tf32,fp16,bf16,int8,source).")
    Path modelTable;

    @Option(
            names = "--bound",
            description = "Also compute what is possible on each order: an LP upper bound no placement can exceed"
                    + " and a checked offline packing, at the headline's arrival cut (docs/simulate-bound.md).")
    boolean bound;

    @Override
    public Integer call() {
        if (tflops != null) {
            return tflopsComparison();
        }
        if (mig != null) {
            return migComparison();
        }
        if (!format.equals("table") && !format.equals("json")) {
            throw new IllegalArgumentException("--format must be table or json, was \"%s\"".formatted(format));
        }
        if (chart != null
                && !chart.toString().endsWith(".png")
                && !chart.toString().endsWith(".svg")) {
            throw new IllegalArgumentException("--chart must name a .png or .svg file, was " + chart);
        }
        List<String> policies = policies(policy);
        List<Long> seedList = seeds(seeds);
        Optional<PublishedResults> published = Optional.ofNullable(anchor).map(PublishedResults::read);
        Trace loaded = trace == null
                ? SyntheticTrace.generate(SyntheticTrace.DEFAULT_SEED)
                : nodes == null ? OpenbTrace.read(trace) : OpenbTrace.read(trace, nodes);
        Experiment experiment = new Experiment(loaded, inflation);
        ProgressLine progress = new ProgressLine(spec.commandLine().getErr());
        List<PolicyReport> replayed = replayEvents == null
                ? seeded(experiment, loaded, policies, seedList, progress)
                : recorded(experiment, loaded, policies, progress);
        List<PolicyReport> reports = replayed;
        if (bound) {
            List<List<TracePod>> orders = replayEvents == null
                    ? seedList.stream()
                            .map(seed -> experiment.order(seed).arrivals())
                            .toList()
                    : List.of(RecordedRun.read(replayEvents).arrivals(loaded));
            PolicyReport.Limits limits = limits(loaded, orders, progress);
            reports = replayed.stream().map(r -> r.withLimits(limits)).toList();
        }
        progress.clear();
        PrintWriter out = spec.commandLine().getOut();
        if (format.equals("json")) {
            out.println(JsonReport.of(reports));
        } else {
            out.print(TableReport.of(heading(loaded, seedList), reports));
            List<PolicyReport> shown = reports;
            published.ifPresent(p -> out.print(p.comparison(loaded.name(), shown)));
        }
        out.flush();
        if (chart != null) {
            Chart.write(
                    chart,
                    loaded.name(),
                    List.copyOf(reports),
                    published.map(p -> p.forTrace(loaded.name())).orElse(java.util.Map.of()));
        }
        return 0;
    }

    private Integer tflopsComparison() {
        io.elasticgpu.core.model.Precision precision = io.elasticgpu.core.model.Precision.parse(tflops);
        io.elasticgpu.core.model.ModelTable table = ModelTableOption.read(modelTable);
        Trace loaded = trace == null
                ? SyntheticTrace.generate(SyntheticTrace.DEFAULT_SEED)
                : nodes == null ? OpenbTrace.read(trace) : OpenbTrace.read(trace, nodes);
        var comparison = new io.elasticgpu.simulator.replay.TflopsComparison(
                new Experiment(loaded, inflation),
                table,
                precision,
                policies(policy).getFirst());
        List<io.elasticgpu.simulator.replay.TflopsComparison.SeedResult> results = new ArrayList<>();
        for (long seed : seeds(seeds)) {
            results.add(comparison.run(seed));
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println(io.elasticgpu.simulator.report.TflopsReport.json(
                loaded.name(), policies(policy).getFirst(), precision.label(), results));
        out.flush();
        return 0;
    }

    private Integer migComparison() {
        io.elasticgpu.core.model.MigGeometry geometry = io.elasticgpu.core.model.MigGeometry.of(mig)
                .orElseThrow(() -> new IllegalArgumentException("--mig: %s has no MIG geometry here; name one of %s"
                        .formatted(
                                mig,
                                io.elasticgpu.core.model.MigGeometry.shipped().stream()
                                        .flatMap(g -> g.models().stream())
                                        .toList())));
        Trace loaded = trace == null
                ? SyntheticTrace.generate(SyntheticTrace.DEFAULT_SEED)
                : nodes == null ? OpenbTrace.read(trace) : OpenbTrace.read(trace, nodes);
        var comparison = new io.elasticgpu.simulator.replay.MigComparison(
                new Experiment(loaded, inflation), geometry, policies(policy));
        ProgressLine progress = new ProgressLine(spec.commandLine().getErr());
        List<io.elasticgpu.simulator.replay.MigComparison.SeedResult> results = new ArrayList<>();
        for (long seed : seeds(seeds)) {
            progress.update("simulate: MIG comparison, seed %d".formatted(seed));
            results.add(comparison.run(seed));
        }
        progress.clear();
        PrintWriter out = spec.commandLine().getOut();
        out.println(io.elasticgpu.simulator.report.MigReport.json(loaded.name(), mig, results));
        out.flush();
        return 0;
    }

    /** The bound and the offline packing of every order, mean over the orders. */
    private static PolicyReport.Limits limits(Trace loaded, List<List<TracePod>> orders, ProgressLine progress) {
        double bound = 0;
        double offline = 0;
        for (int i = 0; i < orders.size(); i++) {
            progress.update("simulate: bound and offline packing of order %d/%d".formatted(i + 1, orders.size()));
            Ceiling ceiling = Ceiling.of(loaded.nodes(), orders.get(i));
            bound += ceiling.boundPct();
            offline += ceiling.offlinePct();
        }
        return new PolicyReport.Limits(bound / orders.size(), offline / orders.size());
    }

    private List<PolicyReport> seeded(
            Experiment experiment, Trace loaded, List<String> policies, List<Long> seedList, ProgressLine progress) {
        List<Experiment.Run> runs = experiment.run(
                policies,
                seedList,
                (done, total, run) -> progress.update("simulate: %d/%d runs done (%s, seed %d, %.1f s)"
                        .formatted(done, total, run.policy(), run.seed(), run.elapsedNanos() / 1e9)));
        List<PolicyReport> reports = new ArrayList<>();
        for (String name : policies) {
            List<RunMetrics> metrics = runs.stream()
                    .filter(r -> r.policy().equals(name))
                    .map(r -> RunMetrics.of(r.log()))
                    .toList();
            long policyMs = runs.stream()
                    .filter(r -> r.policy().equals(name))
                    .mapToLong(r -> r.elapsedNanos() / 1_000_000)
                    .sum();
            reports.add(PolicyReport.summarise(
                    loaded.name(), name, seedList, metrics, loaded.capacityMilli(), Optional.empty(), policyMs));
        }
        return reports;
    }

    private List<PolicyReport> recorded(
            Experiment experiment, Trace loaded, List<String> policies, ProgressLine progress) {
        RecordedRun run = RecordedRun.read(replayEvents);
        List<PolicyReport> reports = new ArrayList<>();
        for (String name : policies) {
            long start = System.nanoTime();
            progress.update("simulate: replaying %d recorded events with %s"
                    .formatted(run.events().size(), name));
            RecordedRun.Comparison c = run.compare(loaded, experiment.policy(name, 0), experiment.metric());
            reports.add(PolicyReport.summarise(
                    loaded.name(),
                    name,
                    List.of(),
                    List.of(RunMetrics.of(c.log())),
                    loaded.capacityMilli(),
                    Optional.of(new PolicyReport.ReplayCheck(c.events(), c.matching(), c.firstDifference())),
                    (System.nanoTime() - start) / 1_000_000));
        }
        return reports;
    }

    private String heading(Trace loaded, List<Long> seedList) {
        String order = replayEvents == null
                ? "seeds %s; arrivals until %.0f%% of GPU capacity".formatted(seedsText(seedList), inflation * 100)
                : "pod order and node priority of " + replayEvents;
        return "trace %s: %d nodes, %d GPUs, %d pods; %s"
                .formatted(
                        loaded.name(),
                        loaded.nodes().size(),
                        loaded.capacityMilli() / 1000,
                        loaded.pods().size(),
                        order);
    }

    private static String seedsText(List<Long> seedList) {
        return seedList.size() > 2 && seedList.getLast() - seedList.getFirst() == seedList.size() - 1
                ? seedList.getFirst() + "-" + seedList.getLast()
                : seedList.toString();
    }

    /** The policies of a {@code --policy} list, by name ({@link PolicyName#parseList}: groups expanded, each once). */
    static List<String> policies(String text) {
        return PolicyName.parseList(text, "--policy").stream()
                .map(PolicyName::text)
                .toList();
    }

    static List<Long> seeds(String text) {
        try {
            if (text.matches("\\s*-?\\d+\\s*-\\s*-?\\d+\\s*")) {
                String[] ends = text.split("(?<=\\d)\\s*-\\s*", 2);
                long from = Long.parseLong(ends[0].strip());
                long to = Long.parseLong(ends[1].strip());
                if (to < from || to - from > 10_000) {
                    throw new IllegalArgumentException(
                            "--seeds range %s must go upwards and hold at most 10001 seeds".formatted(text));
                }
                return LongStream.rangeClosed(from, to).boxed().toList();
            }
            return java.util.Arrays.stream(text.split(","))
                    .map(String::strip)
                    .map(Long::parseLong)
                    .distinct()
                    .toList();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "--seeds must be a range like 42-51 or a list like 42,43, was \"%s\"".formatted(text));
        }
    }
}
