package io.elasticgpu.simulator.bound;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.simulator.report.RunMetrics;
import io.elasticgpu.simulator.trace.TracePod;
import java.util.List;

/**
 * What is possible for one arrival order, at the arrival cut the headline reads: the pods that arrived by the last
 * event at arrival level 100 (every event the allocation at level 100 averages holds at most what a placement of
 * those pods can hold). Immutable.
 *
 * @param cutPods       how many pods of the order arrived by the cut
 * @param capacityMilli the cluster's GPU, in milli-cards
 * @param boundMilli    the linear-programming bound ({@link AllocationBound}): no placement holds more
 * @param offlineMilli  the best of four offline packings, each checked feasible by {@link PackingCheck}: the
 *                      {@link RoundingPacker}'s roundings of the program's solution and of the program with the
 *                      few-per-node rows ({@link AllocationBound#solveForRounding}), and the {@link OfflinePacker}'s
 *                      two best fits
 * @param elapsedMs     time taken for both
 */
public record Ceiling(int cutPods, long capacityMilli, double boundMilli, long offlineMilli, long elapsedMs) {

    /** The arrival level the headline reads. */
    public static final int HEADLINE_LEVEL = 100;

    public double boundPct() {
        return 100 * boundMilli / capacityMilli;
    }

    public double offlinePct() {
        return 100.0 * offlineMilli / capacityMilli;
    }

    /** The ceiling of {@code arrivals} (in arrival order) on {@code nodes}. */
    public static Ceiling of(List<Node> nodes, List<TracePod> arrivals) {
        long start = System.nanoTime();
        long capacity = nodes.stream()
                .flatMap(n -> n.cards().stream())
                .mapToLong(c -> c.computeMilli())
                .sum();
        List<Ask> asks = arrivals.stream().map(TracePod::ask).toList();
        List<Ask> cutAsks = asks.subList(0, cut(asks, capacity, HEADLINE_LEVEL));
        AllocationBound.Solution solution = AllocationBound.solve(nodes, cutAsks);
        double bound = solution.boundMilli();
        // four packings, each checked: the solutions of the program with the few-per-node rows and of the bound's
        // program rounded, best fit guided by the bound's solution, and plain best fit; the best counts
        long offline = 0;
        for (Packing packing : List.of(
                RoundingPacker.pack(nodes, cutAsks, AllocationBound.solveForRounding(nodes, cutAsks, solution)),
                RoundingPacker.pack(nodes, cutAsks, solution),
                OfflinePacker.pack(nodes, cutAsks, solution),
                OfflinePacker.pack(nodes, cutAsks))) {
            PackingCheck.requireFeasible(nodes, cutAsks, packing);
            offline = Math.max(offline, packing.usedMilli());
        }
        return new Ceiling(cutAsks.size(), capacity, bound, offline, (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * How many pods of {@code asks} arrived by the last event that the allocation at {@code level} averages: the last
     * at that level, or, where no event landed there, the last at the level above ({@link RunMetrics}).
     */
    static int cut(List<Ask> asks, long capacityMilli, int level) {
        long arrived = 0;
        int atLevel = 0;
        int atLevelAbove = 0;
        for (int i = 0; i < asks.size(); i++) {
            arrived += asks.get(i).totalMilli();
            int l = RunMetrics.level(arrived, capacityMilli);
            if (l <= level) {
                atLevel = i + 1;
            }
            if (l <= level + 1) {
                atLevelAbove = i + 1;
            }
        }
        boolean any = false;
        int highest = 0;
        arrived = 0;
        for (Ask ask : asks) {
            arrived += ask.totalMilli();
            int l = RunMetrics.level(arrived, capacityMilli);
            any |= l == level;
            highest = Math.max(highest, l);
        }
        if (highest < level) {
            throw new IllegalArgumentException(
                    ("the pods arrive until %d %% of GPU capacity, short of the %d %% the bound"
                                    + " is computed at; let more arrive (--inflation 1.3, the paper's)")
                            .formatted(highest, level));
        }
        return any ? atLevel : atLevelAbove;
    }
}
