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
 * @param boundAfterSeconds     seconds from the first pod made schedulable until 50, 90 and 100 % of the bound pods
 *                              were bound (the baseline's likewise, empty when not measured): whether pods/s is set by
 *                              the stream or by a few late pods
 * @param extenderVerbs         per extender verb, its calls and their mean time in milliseconds, from its own metrics
 * @param ledgerWrites          the extender's writes of nodes' ledgers (binds take turns per node, and those that wait
 *                              go together in one write)
 * @param ledgerConflicts       of them, those refused because another write came first (each a read and a retry)
 * @param cpuMillisPerPod       CPU milliseconds each process used while the pods were placed (the control plane's,
 *                              the extender's, the harness's), per pod bound: where a placement's cost goes; the
 *                              baseline's likewise (empty when not measured)
 * @param idleCpuMillisPerSecond the CPU milliseconds per second of the processes that work whether pods come or not
 *                              (etcd, kube-apiserver, kube-controller-manager, kwok), sampled with every node up and
 *                              no pod coming, before the extender started
 * @param cpuMillisPerPodAboveIdle {@code cpuMillisPerPod} less what those processes' idle rates would have used over
 *                              the stream's time: the work the pods made, which a slower stream does not inflate
 *                              (kube-scheduler, the extender and the harness count in full); the baseline's likewise
 * @param extenderWarmUpPods    pods scheduled through the extender (and deleted) before measuring, 0 when what was
 *                              measured is an extender in a fresh JVM, compiling its code as it goes
 * @param decisionOrder         the simulator on the order kube-scheduler decided the pods in: what is left of the
 *                              difference once kube-scheduler's queue order is taken out
 */
@JsonPropertyOrder({
    "trace",
    "policy",
    "api",
    "nodes",
    "pods",
    "inClusterPct",
    "simulatorPct",
    "differencePoints",
    "podsBound",
    "podsPending",
    "pendingThatFit",
    "overCommittedCards",
    "overCommittedHosts",
    "unaccounted",
    "podsPerSecond",
    "baselinePodsPerSecond",
    "baselinePct",
    "p50BoundSeconds",
    "p99BoundSeconds",
    "cores",
    "sameDecisions",
    "firstDifference",
    "settledFilterCallsPerSecond",
    "boundAfterSeconds",
    "baselineBoundAfterSeconds",
    "extenderVerbs",
    "ledgerWrites",
    "ledgerConflicts",
    "cpuMillisPerPod",
    "baselineCpuMillisPerPod",
    "idleCpuMillisPerSecond",
    "cpuMillisPerPodAboveIdle",
    "baselineCpuMillisPerPodAboveIdle",
    "extenderWarmUpPods",
    "decisionOrder"
})
public record ReplayResult(
        String trace,
        String policy,
        int nodes,
        int pods,
        double inClusterPct,
        double simulatorPct,
        double differencePoints,
        int podsBound,
        int podsPending,
        int pendingThatFit,
        int overCommittedCards,
        int overCommittedHosts,
        int unaccounted,
        double podsPerSecond,
        double baselinePodsPerSecond,
        double p50BoundSeconds,
        double p99BoundSeconds,
        int cores,
        int sameDecisions,
        String firstDifference,
        double settledFilterCallsPerSecond,
        String api,
        double baselinePct,
        double[] boundAfterSeconds,
        double[] baselineBoundAfterSeconds,
        java.util.Map<String, VerbTime> extenderVerbs,
        long ledgerWrites,
        long ledgerConflicts,
        java.util.Map<String, Double> cpuMillisPerPod,
        java.util.Map<String, Double> baselineCpuMillisPerPod,
        java.util.Map<String, Double> idleCpuMillisPerSecond,
        java.util.Map<String, Double> cpuMillisPerPodAboveIdle,
        java.util.Map<String, Double> baselineCpuMillisPerPodAboveIdle,
        int extenderWarmUpPods,
        DecisionOrder decisionOrder) {

    /**
     * The simulator fed the pods in the order kube-scheduler's scheduling cycles decided them (the pods never bound
     * last), against the cluster. Where the queue took pods out of the order they became schedulable in (a pod retried
     * after backoff), the simulator on that order places another sequence than the cluster did; on this one it places
     * the same, so what differs here is the placement's own.
     *
     * @param simulatorPct     what the simulator holds after the pods in decision order (NaN when kube-scheduler's log
     *                         did not tell the order)
     * @param differencePoints in-cluster minus that
     * @param sameDecisions    pods the simulator put on the node the cluster did (or failed on both sides)
     * @param firstDifference  the first pod decided otherwise, empty when none was, or why the order is not known
     */
    public record DecisionOrder(
            double simulatorPct, double differencePoints, int sameDecisions, String firstDifference) {
        static DecisionOrder of(ReplayPlan plan, double inClusterPct, long simulatorMilli, Agreement agreement) {
            double sim = plan.percentOfCapacity(simulatorMilli);
            return new DecisionOrder(sim, inClusterPct - sim, agreement.same(), agreement.firstDifference());
        }

        static DecisionOrder unknown(String why) {
            return new DecisionOrder(Double.NaN, Double.NaN, 0, why);
        }
    }

    /** One extender verb during the replay: how often kube-scheduler called it, and the mean time to answer. */
    public record VerbTime(long calls, double meanMillis) {}

    private static final int[] BOUND_AFTER = {50, 90, 100};

    static ReplayResult of(
            ReplayPlan plan,
            ReplayOptions options,
            Audit audit,
            PodStream.Streamed ours,
            long simulator,
            Agreement agreement,
            double retries,
            PodStream.Streamed baseline,
            Audit baselineAudit,
            java.util.Map<String, VerbTime> verbs,
            long[] ledger,
            java.util.Map<String, Double> cpu,
            java.util.Map<String, Double> baselineCpu,
            java.util.Map<String, Double> idle,
            java.util.Map<String, Double> cpuAboveIdle,
            java.util.Map<String, Double> baselineCpuAboveIdle,
            DecisionOrder decisionOrder) {
        double inCluster = plan.percentOfCapacity(audit.allocatedMilli());
        double sim = plan.percentOfCapacity(simulator);
        return new ReplayResult(
                plan.traceName(),
                options.policy(),
                plan.nodes().size(),
                plan.pods().size(),
                inCluster,
                sim,
                inCluster - sim,
                audit.podsBound(),
                audit.podsPending(),
                audit.pendingThatFit(),
                audit.overCommittedCards(),
                audit.overCommittedHosts(),
                audit.unaccounted(),
                ours.podsPerSecond(),
                baseline == null ? Double.NaN : baseline.podsPerSecond(),
                ours.latencySeconds(50),
                ours.latencySeconds(99),
                Runtime.getRuntime().availableProcessors(),
                agreement.same(),
                agreement.firstDifference(),
                retries,
                options.dra() ? "dra" : "device-plugin",
                baselineAudit == null ? Double.NaN : plan.percentOfCapacity(baselineAudit.allocatedMilli()),
                boundAfter(ours),
                boundAfter(baseline),
                verbs,
                ledger[0],
                ledger[1],
                perPod(cpu, ours.bound()),
                baseline == null ? java.util.Map.of() : perPod(baselineCpu, baseline.bound()),
                millisPerSecond(idle),
                perPod(cpuAboveIdle, ours.bound()),
                baseline == null ? java.util.Map.of() : perPod(baselineCpuAboveIdle, baseline.bound()),
                options.warmExtender(),
                decisionOrder);
    }

    private static double[] boundAfter(PodStream.Streamed streamed) {
        return streamed == null
                ? new double[0]
                : java.util.Arrays.stream(BOUND_AFTER)
                        .mapToDouble(streamed::boundAfterSeconds)
                        .toArray();
    }

    private static String seconds(double[] s) {
        return s.length == 0 ? "not measured" : "%.1f / %.1f / %.1f s".formatted(s[0], s[1], s[2]);
    }

    private static java.util.Map<String, Double> perPod(java.util.Map<String, Double> cpuSeconds, int bound) {
        java.util.Map<String, Double> perPod = new java.util.LinkedHashMap<>();
        cpuSeconds.forEach((name, s) -> perPod.put(name, bound == 0 ? 0 : 1000 * s / bound));
        return perPod;
    }

    /** CPU seconds per second as milliseconds per second. */
    static java.util.Map<String, Double> millisPerSecond(java.util.Map<String, Double> cpuRates) {
        java.util.Map<String, Double> millis = new java.util.LinkedHashMap<>();
        cpuRates.forEach((name, rate) -> millis.put(name, 1000 * rate));
        return millis;
    }

    /**
     * All processes' CPU per pod but the harness's (what the figure compares) against the baseline's; NaN when the
     * baseline was not measured. */
    static double againstBaseline(java.util.Map<String, Double> ours, java.util.Map<String, Double> baseline) {
        double base = withoutHarness(baseline);
        return base == 0 ? Double.NaN : withoutHarness(ours) / base;
    }

    private static double withoutHarness(java.util.Map<String, Double> millis) {
        return millis.entrySet().stream()
                .filter(e -> !e.getKey().equals("harness"))
                .mapToDouble(java.util.Map.Entry::getValue)
                .sum();
    }

    /** The two CPU ratios to the baseline (per pod, and per pod above idle) as the table prints them. */
    static String cpuRatios(
            java.util.Map<String, Double> ours,
            java.util.Map<String, Double> baseline,
            java.util.Map<String, Double> oursAboveIdle,
            java.util.Map<String, Double> baselineAboveIdle) {
        double all = againstBaseline(ours, baseline);
        return Double.isNaN(all)
                ? "not measured"
                : "%.2fx (above idle %.2fx; the harness left out)"
                        .formatted(all, againstBaseline(oursAboveIdle, baselineAboveIdle));
    }

    /** Each process's CPU milliseconds per second, as the table and the replay's log print them. */
    static String rates(java.util.Map<String, Double> millisPerSecond) {
        StringBuilder b = new StringBuilder();
        millisPerSecond.forEach((name, ms) -> b.append(b.isEmpty() ? "" : " ").append("%s %.0f".formatted(name, ms)));
        return b.isEmpty() ? "not measured" : b.toString();
    }

    private static String perPod(java.util.Map<String, Double> millis) {
        if (millis.isEmpty()) {
            return "not measured";
        }
        StringBuilder b = new StringBuilder("%.0f ms:"
                .formatted(millis.values().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum()));
        millis.forEach((name, ms) -> b.append(" %s %.1f".formatted(name, ms)));
        return b.toString();
    }

    private String verbs() {
        StringBuilder b = new StringBuilder();
        extenderVerbs.forEach((verb, t) ->
                b.append(b.isEmpty() ? "" : ", ").append("%s %d x %.1f ms".formatted(verb, t.calls(), t.meanMillis())));
        return b.isEmpty() ? "not read" : b.toString();
    }

    /** The table {@code bench/run cluster-replay} prints. */
    public String table() {
        String ratio = Double.isNaN(baselinePodsPerSecond)
                ? "not measured"
                : "%.1f pods/s, ours %.2fx".formatted(baselinePodsPerSecond, podsPerSecond / baselinePodsPerSecond);
        return """
                trace %s, policy %s, api %s, %d nodes, %d pods, %d cores, extender %s
                  GPU allocated in cluster   %7.2f %%
                  simulator, same order      %7.2f %%
                  difference                 %+7.2f points
                  simulator, decision order  %7.2f %% (difference %+.2f; decided as it %d of %d, first difference: %s)
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
                  bound 50/90/100 %% after    %s (baseline %s)
                  extender calls x mean      %s
                  ledger writes / refused    %d / %d
                  CPU per pod bound          %s
                  baseline CPU per pod bound %s
                  idle CPU, ms per second    %s
                  above idle, per pod bound  %s
                  baseline, above idle       %s
                  CPU per pod, ours/baseline %s
                """.formatted(
                trace,
                policy,
                api,
                nodes,
                pods,
                cores,
                extenderWarmUpPods == 0 ? "in a fresh JVM" : "warmed up on %d pods".formatted(extenderWarmUpPods),
                inClusterPct,
                simulatorPct,
                differencePoints,
                decisionOrder.simulatorPct(),
                decisionOrder.differencePoints(),
                decisionOrder.sameDecisions(),
                pods,
                decisionOrder.firstDifference().isEmpty() ? "none" : decisionOrder.firstDifference(),
                podsBound,
                podsPending,
                pendingThatFit,
                overCommittedCards,
                overCommittedHosts,
                unaccounted,
                podsPerSecond,
                ratio,
                Double.isNaN(baselinePct)
                        ? "not audited"
                        : "%.2f %% (kube-scheduler's DRA allocator alone)".formatted(baselinePct),
                p50BoundSeconds,
                p99BoundSeconds,
                sameDecisions,
                pods,
                firstDifference.isEmpty() ? "none" : firstDifference,
                settledFilterCallsPerSecond,
                seconds(boundAfterSeconds),
                seconds(baselineBoundAfterSeconds),
                verbs(),
                ledgerWrites,
                ledgerConflicts,
                perPod(cpuMillisPerPod),
                perPod(baselineCpuMillisPerPod),
                rates(idleCpuMillisPerSecond),
                perPod(cpuMillisPerPodAboveIdle),
                perPod(baselineCpuMillisPerPodAboveIdle),
                cpuRatios(
                        cpuMillisPerPod,
                        baselineCpuMillisPerPod,
                        cpuMillisPerPodAboveIdle,
                        baselineCpuMillisPerPodAboveIdle));
    }
}
