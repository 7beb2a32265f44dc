package io.elasticgpu.bench.arena;

import io.elasticgpu.bench.cluster.ChartConfig;
import io.elasticgpu.bench.cluster.ReplayPlan;
import java.nio.file.Path;

/**
 * What every contender of one arena run shares: the plan (nodes, pods in arrival order), the chart as rendered, and
 * HAMi's scheduler binary when a HAMi contender is in the run.
 *
 * @param hamiBinary null when no HAMi contender runs
 */
public record Stage(Path repository, ChartConfig chart, ReplayPlan plan, Path hamiBinary) {

    /** The namespace the pods are created in. */
    public static final String NAMESPACE = "arena";

    @Override
    public Path hamiBinary() {
        if (hamiBinary == null) {
            throw new IllegalStateException("no HAMi binary: the run has no HAMi contender");
        }
        return hamiBinary;
    }
}
