package io.elasticgpu.simulator.preemption;

import io.elasticgpu.simulator.replay.Experiment;
import io.elasticgpu.simulator.trace.OpenbTrace;
import io.elasticgpu.simulator.trace.Trace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The cost of preemption on an openb trace: the simulator's arrival order and node priority for each seed, pod
 * priorities by {@link QosPriority}, and a {@link PreemptingReplay} with kube-scheduler's victims ({@code totals})
 * against the extender's ({@code cards}), the same pods in the same order. {@code bench/run preemption} runs it.
 */
public final class PreemptionCost {

    private PreemptionCost() {}

    /**
     * Replays {@code podList} for seeds 42 up to {@code 42 + seeds - 1}, both ways, printing a line per replay to
     * standard error.
     *
     * @return the figures as one JSON object
     * @throws IllegalArgumentException when the list has no {@code qos} column or the policy is unknown
     */
    public static String run(Path podList, String policy, int seeds, double inflation) {
        Trace trace = OpenbTrace.read(podList);
        QosPriority qos = QosPriority.read(podList);
        Experiment experiment = new Experiment(trace, inflation);
        List<String> runs = new ArrayList<>();
        for (long seed = 42; seed < 42 + seeds; seed++) {
            Experiment.Order order = experiment.order(seed);
            for (PreemptingReplay.Victims victims : PreemptingReplay.Victims.values()) {
                long start = System.nanoTime();
                PreemptingReplay.Result r = new PreemptingReplay(
                                order.nodes(), experiment.policy(policy, seed), victims)
                        .run(order.arrivals(), qos::priority);
                runs.add(json(seed, r, (System.nanoTime() - start) / 1e9));
                System.err.printf(
                        Locale.ROOT,
                        "seed %d %s: %d preemptors, %d placed, %d evicted (%.3f per placed), %d for nothing,"
                                + " %.2f %% GPU allocated%n",
                        seed,
                        r.victims(),
                        r.preemptors(),
                        r.placedByPreemption(),
                        r.evicted(),
                        r.evictedPerPlaced(),
                        r.evictedForNothing(),
                        r.gpuAllocatedPercent());
            }
        }
        Map<Integer, Long> counts = new TreeMap<>(qos.counts());
        return String.format(
                Locale.ROOT,
                "{\"trace\":\"%s\",\"policy\":\"%s\",\"inflation\":%s,"
                        + "\"priorities\":\"LS and Guaranteed 3, Burstable 2, BE 1\",\"podsByPriority\":%s,"
                        + "\"candidates\":%d,\"rounds\":%d,\"runs\":[%n%s%n]}%n",
                trace.name(),
                policy,
                inflation,
                counts.entrySet().stream()
                        .map(e -> "\"" + e.getKey() + "\":" + e.getValue())
                        .collect(java.util.stream.Collectors.joining(",", "{", "}")),
                PreemptingReplay.CANDIDATES,
                PreemptingReplay.ROUNDS,
                String.join(",\n", runs));
    }

    private static String json(long seed, PreemptingReplay.Result r, double seconds) {
        return String.format(
                Locale.ROOT,
                "{\"seed\":%d,\"victims\":\"%s\",\"arrived\":%d,\"preemptors\":%d,\"placedByPreemption\":%d,"
                        + "\"evicted\":%d,\"evictedPerPlaced\":%.4f,\"evictedForNothing\":%d,\"rounds\":%d,"
                        + "\"gpuAllocatedPercent\":%.4f,\"priority3Milli\":%d,\"seconds\":%.2f}",
                seed,
                r.victims().name().toLowerCase(Locale.ROOT),
                r.arrived(),
                r.preemptors(),
                r.placedByPreemption(),
                r.evicted(),
                r.evictedPerPlaced(),
                r.evictedForNothing(),
                r.rounds(),
                r.gpuAllocatedPercent(),
                r.placedMilliByPriority3(),
                seconds);
    }
}
