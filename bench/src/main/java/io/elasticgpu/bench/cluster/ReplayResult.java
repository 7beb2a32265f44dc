package io.elasticgpu.bench.cluster;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * A cluster replay's figures, as the table and the JSON give them.
 *
 * @param inClusterPct          GPU held at the end, percent of capacity, audited from the API
 * @param simulatorPct          what the simulator holds after the same pods in the order they became schedulable
 * @param podsPerSecond         pods bound per second, first create to last bind
 * @param baselinePodsPerSecond the same without the extender (NaN when not measured)
 * @param api                   how the nodes offer their cards: device-plugin or dra
 * @param baselinePct           under DRA, what kube-scheduler's own allocator holds without the extender (NaN
 *                              otherwise: without the extender device-plugin pods carry no allocation to audit)
 */
@JsonPropertyOrder({"trace", "policy", "api", "nodes", "pods", "inClusterPct", "simulatorPct", "differencePoints", "podsBound",
        "podsPending", "pendingThatFit", "overCommittedCards", "overCommittedHosts", "unaccounted", "podsPerSecond",
        "baselinePodsPerSecond", "baselinePct", "p50BoundSeconds", "p99BoundSeconds", "cores", "sameDecisions", "firstDifference", "settledFilterCallsPerSecond"})
public record ReplayResult(String trace, String policy, int nodes, int pods, double inClusterPct, double simulatorPct,
                           double differencePoints, int podsBound, int podsPending, int pendingThatFit,
                           int overCommittedCards, int overCommittedHosts, int unaccounted, double podsPerSecond,
                           double baselinePodsPerSecond, double p50BoundSeconds, double p99BoundSeconds, int cores,
                           int sameDecisions, String firstDifference, double settledFilterCallsPerSecond, String api,
                           double baselinePct) {

    static ReplayResult of(ReplayPlan plan, ReplayOptions options, Audit audit, PodStream.Streamed ours, long simulator,
                           Agreement agreement, double retries, PodStream.Streamed baseline, Audit baselineAudit) {
        double inCluster = 100.0 * audit.allocatedMilli() / plan.capacity();
        double sim = 100.0 * simulator / plan.capacity();
        return new ReplayResult(plan.traceName(), options.policy(), plan.nodes().size(), plan.pods().size(), inCluster, sim,
                inCluster - sim, audit.podsBound(), audit.podsPending(), audit.pendingThatFit(), audit.overCommittedCards(),
                audit.overCommittedHosts(), audit.unaccounted(), ours.podsPerSecond(),
                baseline == null ? Double.NaN : baseline.podsPerSecond(), ours.latencySeconds(50),
                ours.latencySeconds(99), Runtime.getRuntime().availableProcessors(), agreement.same(),
                agreement.firstDifference(), retries, options.dra() ? "dra" : "device-plugin",
                baselineAudit == null ? Double.NaN : 100.0 * baselineAudit.allocatedMilli() / plan.capacity());
    }

    /** The table {@code bench/run cluster-replay} prints. */
    public String table() {
        String ratio = Double.isNaN(baselinePodsPerSecond) ? "not measured"
                : "%.1f pods/s, ours %.2fx".formatted(baselinePodsPerSecond, podsPerSecond / baselinePodsPerSecond);
        return """
                trace %s, policy %s, api %s, %d nodes, %d pods, %d cores
                  GPU allocated in cluster   %7.2f %%
                  simulator, same order      %7.2f %%
                  difference                 %+7.2f points
                  pods bound / pending       %d / %d (pending that would fit now: %d)
                  cards over capacity        %d
                  hosts over CPU/memory      %d
                  GPU pods without allocation %d
                  pods/s bound               %.1f
                  baseline (no extender)     %s
                  baseline GPU allocated     %s
                  create->bound p50 / p99    %.2f s / %.2f s
                  decided as the simulator   %d of %d pods (first difference: %s)
                  filter calls/s, settled    %.1f
                """.formatted(trace, policy, api, nodes, pods, cores, inClusterPct, simulatorPct, differencePoints, podsBound,
                podsPending, pendingThatFit, overCommittedCards, overCommittedHosts, unaccounted, podsPerSecond, ratio,
                Double.isNaN(baselinePct) ? "not audited" : "%.2f %% (kube-scheduler's DRA allocator alone)".formatted(baselinePct),
                p50BoundSeconds, p99BoundSeconds, sameDecisions, pods, firstDifference.isEmpty() ? "none" : firstDifference,
                settledFilterCallsPerSecond);
    }
}
