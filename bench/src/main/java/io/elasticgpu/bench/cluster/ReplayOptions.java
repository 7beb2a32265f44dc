package io.elasticgpu.bench.cluster;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@code bench/run cluster-replay} was asked ({@code ClusterReplayCommand} reads and checks the options).
 *
 * @param trace           an openb pod list
 * @param nodes           the openb node list (default: beside the pod list)
 * @param events          a recorded run whose pod order and node priority to replay, or null for {@code seed}
 * @param seed            our shuffle's seed (the simulator's, PROTOCOL.md)
 * @param cutPct          pods arrive until they have asked this percentage of the cluster's GPU capacity
 * @param policy          the extender's and the simulator's policy
 * @param maxNodes        replay on this many of the trace's nodes (evenly spread over it), 0 for all
 * @param schedulerConfig a KubeSchedulerConfiguration to use instead of the chart's ({@code ${EXTENDER_URL}} is
 *                        replaced), or null
 * @param clients         concurrent pod creators
 * @param baseline        also replay the same pods without the extender, for the control plane's own pods/s
 * @param gated           create every pod behind a scheduling gate, then lift the gates in order (the extender
 *                        knows the workload from the start, as the simulator's policy does)
 * @param extenderFlags   flags added to the extender's command line after the chart's, to measure a knob
 * @param extenderJvm     JVM options added to the extender's after the chart's (e.g. {@code -XX:AOTCache=FILE})
 * @param warmExtender    before measuring, schedule this many copies of the first pods through the extender and delete
 *                        them, so that what is measured is an extender whose JIT has compiled its code (as one that has
 *                        run for a while is) rather than a fresh JVM; 0 measures the fresh JVM
 * @param dra             the nodes offer their cards through DRA and each GPU pod asks through a ResourceClaim
 *                        ({@code --api dra}); the baseline is then kube-scheduler's own DRA allocator
 * @param json            where to write the result as JSON, or null
 */
public record ReplayOptions(
        Path trace,
        Path nodes,
        Path events,
        long seed,
        double cutPct,
        String policy,
        int maxNodes,
        Path schedulerConfig,
        int clients,
        boolean baseline,
        boolean gated,
        List<String> extenderFlags,
        List<String> extenderJvm,
        int warmExtender,
        boolean dra,
        Path json) {

    public ReplayOptions {
        extenderFlags = List.copyOf(extenderFlags);
        extenderJvm = List.copyOf(extenderJvm);
    }
}
