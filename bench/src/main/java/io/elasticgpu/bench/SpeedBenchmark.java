package io.elasticgpu.bench;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.policy.Choice;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.simulator.replay.Arrivals;
import io.elasticgpu.simulator.replay.Experiment;
import io.elasticgpu.simulator.replay.Replay;
import io.elasticgpu.simulator.trace.OpenbTrace;
import io.elasticgpu.simulator.trace.Trace;
import io.elasticgpu.simulator.trace.TracePod;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.random.RandomGeneratorFactory;

/**
 * Wall time of one replay (seed 42, one thread) of {@code fgd} and {@code elastic}, against two named baselines in
 * the same run: {@code fgd} itself, and {@code fgd-rescoring-everything}, the same policy with the per-node score
 * cache turned off, which is what scoring costs without incremental bookkeeping. Each is run
 * {@value #REPETITIONS} times after one warm-up; the median is reported.
 */
final class SpeedBenchmark {

    static final int REPETITIONS = 5;
    static final double TARGET_SECONDS = 5;

    private SpeedBenchmark() {}

    static void run(Path podList) {
        Trace trace = OpenbTrace.read(podList);
        Experiment experiment = new Experiment(trace, Experiment.PAPER_INFLATION);
        var random = RandomGeneratorFactory.of("L64X128MixRandom").create(42);
        List<TracePod> arrivals =
                Arrivals.order(trace.pods(), trace.capacityMilli(), Experiment.PAPER_INFLATION, random);
        System.out.printf(
                Locale.ROOT,
                "trace %s: %d nodes, %d pods after inflation; %d cores; median of %d runs%n%n",
                trace.name(),
                trace.nodes().size(),
                arrivals.size(),
                Runtime.getRuntime().availableProcessors(),
                REPETITIONS);
        double fgd = time("fgd", experiment, trace, arrivals, false, REPETITIONS);
        double elastic = time("elastic", experiment, trace, arrivals, false, REPETITIONS);
        double uncached = time("fgd-rescoring-everything", experiment, trace, arrivals, true, 1);
        System.out.printf(Locale.ROOT, "%n%-26s %8s %12s %14s%n", "replay", "seconds", "vs fgd", "target < 5 s");
        row("fgd", fgd, fgd);
        row("elastic", elastic, fgd);
        row("fgd-rescoring-everything", uncached, fgd);
        System.out.printf(
                Locale.ROOT,
                "%nthe score cache makes fgd %.1fx faster than rescoring every node for every pod%n",
                uncached / fgd);
    }

    private static void row(String name, double seconds, double baseline) {
        System.out.printf(
                Locale.ROOT,
                "%-26s %8.2f %11.2fx %14s%n",
                name,
                seconds,
                seconds / baseline,
                seconds < TARGET_SECONDS ? "yes" : "no");
    }

    private static double time(
            String label,
            Experiment experiment,
            Trace trace,
            List<TracePod> arrivals,
            boolean uncached,
            int repetitions) {
        String policyName = label.startsWith("elastic") ? "elastic" : "fgd";
        int warmUps = uncached ? 0 : 1; // the uncached replay is slow enough to need no warm-up
        double[] seconds = new double[repetitions];
        for (int i = -warmUps; i < repetitions; i++) {
            Policy policy = experiment.policy(policyName, 42);
            Policy measured = uncached ? new Uncached(policy) : policy;
            long start = System.nanoTime();
            new Replay(trace.nodes(), measured, experiment.metric()).run(arrivals, done -> {});
            if (i >= 0) {
                seconds[i] = (System.nanoTime() - start) / 1e9;
            }
        }
        Arrays.sort(seconds);
        double median = seconds[seconds.length / 2];
        System.err.printf(Locale.ROOT, "%s: %.2f s%n", label, median);
        return median;
    }

    /** The same policy, declared uncacheable so that the placer rescores every node for every pod. */
    private record Uncached(Policy policy) implements Policy {
        @Override
        public String name() {
            return policy.name();
        }

        @Override
        public Choice choose(Ask ask, NodeState node) {
            return policy.choose(ask, node);
        }

        @Override
        public boolean cacheable() {
            return false;
        }
    }
}
