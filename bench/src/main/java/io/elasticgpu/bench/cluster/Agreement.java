package io.elasticgpu.bench.cluster;

import io.elasticgpu.simulator.trace.TracePod;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How far the cluster decided as the simulator did, pod by pod in queue order: where the points go starts at the
 * first difference.
 *
 * @param same            pods placed on the same node (or failed on both sides)
 * @param firstDifference the first pod decided otherwise, with both decisions, or empty when none was
 */
record Agreement(
        int same,
        String firstDifference,
        Map<String, Integer> pendingInCluster,
        Map<String, Integer> failedInSimulator) {

    static Agreement of(List<TracePod> order, List<String> simulated, Map<String, String> cluster) {
        int same = 0;
        String first = "";
        Map<String, Integer> pending = new java.util.TreeMap<>();
        Map<String, Integer> failed = new java.util.TreeMap<>();
        for (int i = 0; i < order.size(); i++) {
            String name = order.get(i).name();
            String there = cluster.get(name);
            var ask = order.get(i).ask();
            String shape = ask.needsCards() ? ask.cards() + "x" + ask.milliPerCard() : "cpu";
            if (there == null) {
                pending.merge(shape, 1, Integer::sum);
            }
            if (simulated.get(i) == null) {
                failed.merge(shape, 1, Integer::sum);
            }
            if (Objects.equals(simulated.get(i), there)) {
                same++;
            } else if (first.isEmpty()) {
                first = "#%d %s: simulator %s, cluster %s".formatted(i, name, simulated.get(i), there);
            }
        }
        return new Agreement(same, first, pending, failed);
    }
}
