package io.elasticgpu.bench.arena;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.elasticgpu.bench.cluster.Audit;
import io.elasticgpu.bench.cluster.PodStream;
import io.elasticgpu.bench.cluster.ProcessUse;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.simulator.trace.TracePod;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One contender's result on one trace, audited from the API alone.
 *
 * @param allocationPct       GPU granted at the arrival cut, percent of capacity: the share each bound pod asked,
 *                            not the whole cards a contender may block for it
 * @param podsPerSecond       pods bound per second, first schedulable pod to last bind
 * @param overCommittedCards  cards over capacity by the contender's own records (must be 0)
 * @param unaccounted         bound GPU pods without the contender's record of their cards (must be 0)
 * @param cpuSeconds          CPU the contender's scheduler used (HAMi's or our extender; kube-scheduler for
 *                            no-sharing)
 * @param peakRssMib          its peak resident memory
 * @param schedulerAlive      false when the contender's scheduler had exited by the end (a crash)
 * @param kubeSchedulerCpuSeconds CPU kube-scheduler used
 * @param pendingByShape      the pods left pending, by shape: {@code <cards>x<milli per card>}, or {@code cpu}
 * @param curve               GPU allocated against GPU asked, both in percent of capacity, in arrival order
 */
@JsonPropertyOrder({
    "name",
    "trace",
    "allocationPct",
    "podsBound",
    "podsPending",
    "podsPerSecond",
    "p50BoundSeconds",
    "p99BoundSeconds",
    "overCommittedCards",
    "unaccounted",
    "cpuSeconds",
    "peakRssMib",
    "schedulerAlive",
    "kubeSchedulerCpuSeconds",
    "pendingByShape",
    "curve"
})
public record Standing(
        String name,
        String trace,
        double allocationPct,
        int podsBound,
        int podsPending,
        double podsPerSecond,
        double p50BoundSeconds,
        double p99BoundSeconds,
        int overCommittedCards,
        int unaccounted,
        double cpuSeconds,
        long peakRssMib,
        boolean schedulerAlive,
        double kubeSchedulerCpuSeconds,
        Map<String, Integer> pendingByShape,
        List<Point> curve) {

    /** @param pods the pods at the end; each names its place in {@code plan} ({@link Audit#index}) */
    static Standing of(
            String name,
            String trace,
            List<TracePod> plan,
            long capacityMilli,
            List<Pod> pods,
            PodStream.Streamed streamed,
            int overCommitted,
            int unaccounted,
            ProcessUse scheduler,
            ProcessUse kubeScheduler) {
        boolean[] bound = new boolean[plan.size()];
        for (Pod p : pods) {
            if (p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().isEmpty()) {
                bound[Audit.index(p)] = true;
            }
        }
        List<Point> curve = curve(plan, bound, capacityMilli);
        int podsBound = 0;
        Map<String, Integer> pending = new TreeMap<>();
        for (int i = 0; i < bound.length; i++) {
            podsBound += bound[i] ? 1 : 0;
            if (!bound[i]) {
                Ask ask = plan.get(i).ask();
                pending.merge(ask.needsCards() ? ask.cards() + "x" + ask.milliPerCard() : "cpu", 1, Integer::sum);
            }
        }
        return new Standing(
                name,
                trace,
                curve.getLast().allocatedPct(),
                podsBound,
                plan.size() - podsBound,
                streamed.podsPerSecond(),
                streamed.latencySeconds(50),
                streamed.latencySeconds(99),
                overCommitted,
                unaccounted,
                scheduler.cpuSeconds(),
                scheduler.peakRssMib(),
                scheduler.alive(),
                kubeScheduler.cpuSeconds(),
                pending,
                curve);
    }

    /** A point of the curve: after {@code arrivedPct} of capacity had been asked, {@code allocatedPct} was granted. */
    public record Point(double arrivedPct, double allocatedPct) {}

    /**
     * PodGrant against arrival: walking the pods in arrival order, the GPU the bound ones asked, at each whole
     * percent of capacity asked and after the last pod. Pods do not leave in this protocol, so a pod bound at the end
     * held its share from its turn on (or from a little later, when the contender bound it after later pods).
     */
    static List<Point> curve(List<TracePod> plan, boolean[] bound, long capacityMilli) {
        List<Point> curve = new ArrayList<>();
        curve.add(new Point(0, 0));
        long asked = 0;
        long granted = 0;
        for (int i = 0; i < plan.size(); i++) {
            long milli = plan.get(i).ask().totalMilli();
            asked += milli;
            granted += bound[i] ? milli : 0;
            int percent = (int) (asked * 100 / capacityMilli);
            if (percent > curve.getLast().arrivedPct() || i == plan.size() - 1) {
                curve.add(new Point(100.0 * asked / capacityMilli, 100.0 * granted / capacityMilli));
            }
        }
        return List.copyOf(curve);
    }
}
