package io.elasticgpu.bench;

import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.simulator.replay.Experiment;
import io.elasticgpu.simulator.report.PolicyReport;
import io.elasticgpu.simulator.report.PublishedResults;
import io.elasticgpu.simulator.report.RunMetrics;
import io.elasticgpu.simulator.trace.OpenbTrace;
import io.elasticgpu.simulator.trace.Trace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * The paper's experiment on every trace the artifact published: the six policies and {@code elastic}, seeds
 * 42..51, 130 % inflation. Prints a Markdown table of ours against the published means, then elastic against fgd
 * (allocation and fragmentation at 80, 90 and 100 % arrival). Exits 1 when a paper policy lands more than
 * {@value #TOLERANCE} points from its published mean.
 */
final class Reproduction {

    static final double TOLERANCE = 0.3;
    static final List<Long> SEEDS = LongStream.rangeClosed(42, 51).boxed().toList();

    private Reproduction() {}

    static int run(Path traceDir, Path resultsFile) throws IOException {
        PublishedResults published = PublishedResults.read(resultsFile);
        List<Path> traces;
        try (Stream<Path> files = Files.list(traceDir)) {
            traces = files.filter(f -> f.getFileName().toString().startsWith("openb_pod_list_"))
                    .sorted()
                    .filter(f -> !published.published(name(f)).isEmpty())
                    .toList();
        }
        List<String> policies = new ArrayList<>(Policies.PAPER);
        policies.add("elastic");
        int outside = 0;
        StringBuilder elasticRows = new StringBuilder();
        System.out.println("| trace | policy | ours (mean ± sd) | published | diff | within ±0.3 |");
        System.out.println("|---|---|---|---|---|---|");
        for (Path file : traces) {
            Trace trace = OpenbTrace.read(file);
            long start = System.nanoTime();
            Experiment experiment = new Experiment(trace, Experiment.PAPER_INFLATION);
            List<Experiment.Run> runs = experiment.run(
                    policies,
                    SEEDS,
                    (done, total, run) ->
                            System.err.printf(Locale.ROOT, "\r%s: %d/%d runs", trace.name(), done, total));
            System.err.printf(Locale.ROOT, " (%.0f s)%n", (System.nanoTime() - start) / 1e9);
            Map<String, PublishedResults.Published> paper = published.published(trace.name());
            PolicyReport fgd = null;
            for (String policy : policies) {
                PolicyReport r = summarise(trace, policy, runs);
                PublishedResults.Published p = paper.get(policy);
                if (p != null) {
                    double diff = r.allocationAt100().mean() - p.mean();
                    boolean within = Math.abs(diff) <= TOLERANCE;
                    outside += within ? 0 : 1;
                    System.out.printf(
                            Locale.ROOT,
                            "| %s | %s | %.2f ± %.2f | %.2f | %+.2f | %s |%n",
                            trace.name(),
                            policy,
                            r.allocationAt100().mean(),
                            r.allocationAt100().sd(),
                            p.mean(),
                            diff,
                            within ? "yes" : "**no**");
                }
                if (policy.equals("fgd")) {
                    fgd = r;
                } else if (policy.equals("elastic")) {
                    elasticRows.append(compare(trace.name(), r, fgd));
                }
            }
        }
        System.out.println();
        System.out.println(
                "| trace | elastic | fgd | gain | frag amount % at 80/90/100 (elastic vs fgd) | frag ratio % at "
                        + "80/90/100 (elastic vs fgd) |");
        System.out.println("|---|---|---|---|---|---|");
        System.out.print(elasticRows);
        System.out.printf(
                Locale.ROOT, "%n%d paper policy results outside ±%.1f of the published mean%n", outside, TOLERANCE);
        return outside == 0 ? 0 : 1;
    }

    private static PolicyReport summarise(Trace trace, String policy, List<Experiment.Run> runs) {
        List<Experiment.Run> mine =
                runs.stream().filter(r -> r.policy().equals(policy)).toList();
        return PolicyReport.summarise(
                trace.name(),
                policy,
                SEEDS,
                mine.stream().map(r -> RunMetrics.of(r.log())).toList(),
                trace.capacityMilli(),
                Optional.empty(),
                mine.stream().mapToLong(r -> r.elapsedNanos() / 1_000_000).sum());
    }

    private static String compare(String trace, PolicyReport elastic, PolicyReport fgd) {
        StringBuilder amounts = new StringBuilder();
        StringBuilder ratios = new StringBuilder();
        for (int level : PolicyReport.FRAGMENTATION_LEVELS) {
            String sep = amounts.isEmpty() ? "" : " / ";
            amounts.append(sep)
                    .append(String.format(
                            Locale.ROOT,
                            "%.2f vs %.2f",
                            elastic.fragmentation().get(level).amountPct(),
                            fgd.fragmentation().get(level).amountPct()));
            ratios.append(sep)
                    .append(String.format(
                            Locale.ROOT,
                            "%.1f vs %.1f",
                            elastic.fragmentation().get(level).ratioPct(),
                            fgd.fragmentation().get(level).ratioPct()));
        }
        double gain = elastic.allocationAt100().mean() - fgd.allocationAt100().mean();
        return String.format(
                Locale.ROOT,
                "| %s | %.2f | %.2f | %+.2f | %s | %s |%n",
                trace,
                elastic.allocationAt100().mean(),
                fgd.allocationAt100().mean(),
                gain,
                amounts,
                ratios);
    }

    private static String name(Path file) {
        return file.getFileName().toString().replaceFirst("\\.csv$", "");
    }
}
