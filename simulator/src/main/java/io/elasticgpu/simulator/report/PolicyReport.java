package io.elasticgpu.simulator.report;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One policy on one trace over several seeds: the headline allocation ratio at 100 % arrival, the unallocated GPUs,
 * the first failure, fragmentation at 80, 90 and 100 % arrival and the mean curve. Immutable.
 */
public record PolicyReport(
        String trace,
        String policy,
        List<Long> seeds,
        Statistic allocationAt100,
        double unallocatedGpusAt100,
        Optional<RunMetrics.FirstFailure> firstFailure,
        Map<Integer, Fragmentation> fragmentation,
        double[] curve,
        Optional<ReplayCheck> replay,
        long elapsedMs,
        Optional<Limits> limits) {

    /**
     * What is possible on the same arrival orders, mean over the seeds: the linear-programming bound no placement
     * exceeds and a checked offline packing, both in percent of GPU capacity at the headline's arrival cut.
     */
    public record Limits(double boundPct, double offlinePct) {}

    /** Reported arrival levels for fragmentation. */
    public static final List<Integer> FRAGMENTATION_LEVELS = List.of(80, 90, 100);

    /** Fragmentation at one arrival level, in percent of capacity and of idle capacity. */
    public record Fragmentation(double amountPct, double ratioPct) {}

    /** Decisions compared with a recorded run, and how many were the same. */
    public record ReplayCheck(int events, int matching, String firstDifference) {}

    public PolicyReport {
        requireNonNull(trace, "trace");
        requireNonNull(policy, "policy");
        seeds = List.copyOf(seeds);
        fragmentation = Map.copyOf(fragmentation);
        curve = curve.clone();
        requireNonNull(limits, "limits");
    }

    /**
     * Summarises the runs of one policy.
     *
     * @param capacityMilli the cluster's GPU capacity, to turn percentages into GPUs
     */
    public static PolicyReport summarise(
            String trace,
            String policy,
            List<Long> seeds,
            List<RunMetrics> runs,
            long capacityMilli,
            Optional<ReplayCheck> replay,
            long elapsedMs) {
        Statistic at100 =
                Statistic.of(runs.stream().mapToDouble(r -> r.allocationAt(100)).toArray());
        double gpus = capacityMilli / 1000.0;
        double unallocated = (100 - at100.mean()) / 100 * gpus;
        List<RunMetrics.FirstFailure> failures =
                runs.stream().flatMap(r -> r.firstFailure().stream()).toList();
        Optional<RunMetrics.FirstFailure> first = failures.isEmpty()
                ? Optional.empty()
                : Optional.of(new RunMetrics.FirstFailure(
                        Statistic.of(failures.stream()
                                        .mapToDouble(RunMetrics.FirstFailure::arrivedPct)
                                        .toArray())
                                .mean(),
                        Statistic.of(failures.stream()
                                        .mapToDouble(RunMetrics.FirstFailure::unallocatedGpus)
                                        .toArray())
                                .mean()));
        Map<Integer, Fragmentation> frag = new LinkedHashMap<>();
        for (int level : FRAGMENTATION_LEVELS) {
            frag.put(
                    level,
                    new Fragmentation(
                            Statistic.of(runs.stream()
                                            .mapToDouble(r -> RunMetrics.at(r.fragAmount(), level))
                                            .toArray())
                                    .mean(),
                            Statistic.of(runs.stream()
                                            .mapToDouble(r -> RunMetrics.at(r.fragRatio(), level))
                                            .toArray())
                                    .mean()));
        }
        int levels = runs.stream().mapToInt(r -> r.allocation().length).max().orElse(0);
        double[] curve = new double[levels];
        for (int level = 0; level < levels; level++) {
            int l = level;
            curve[level] = Statistic.of(
                            runs.stream().mapToDouble(r -> r.allocationAt(l)).toArray())
                    .mean();
        }
        return new PolicyReport(
                trace, policy, seeds, at100, unallocated, first, frag, curve, replay, elapsedMs, Optional.empty());
    }

    /** This report with what is possible on its orders beside it. */
    public PolicyReport withLimits(Limits possible) {
        return new PolicyReport(
                trace,
                policy,
                seeds,
                allocationAt100,
                unallocatedGpusAt100,
                firstFailure,
                fragmentation,
                curve,
                replay,
                elapsedMs,
                Optional.of(possible));
    }
}
