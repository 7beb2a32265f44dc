package io.elasticgpu.scheduler.decision;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.placement.Rollouts;
import io.elasticgpu.core.policy.Lookahead;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.NodeStates;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;

/**
 * The look-ahead in the deciding filter: of the nodes a pod fits, the {@link Lookahead#candidates} best-placed (the
 * first by name on equal place) of those its model reserve leaves open to it ({@link Rollouts#candidates}) are rolled
 * out with core's {@link Rollouts}, as the simulator's placer does, on the
 * cluster as the cache's snapshot holds it by slot. The rollouts keep each drawn shape's best nodes from one decision
 * to the next, so one instance serves the policy it was made for, one decision at a time. Thread-safe.
 */
final class RolloutChoice {

    /** The policy {@link #rollouts} were made for; both guarded by this. */
    private Policy policy;

    private Rollouts rollouts;

    /**
     * The position in {@code fit} the rollouts choose, or -1 when no node fits.
     *
     * @param place  each node's place among the fitting ones, 0..1, NaN where the pod does not fit
     * @param slots  a position's slot in {@code cluster}
     * @param cards  the cards the policy chose for {@code ask} at a position
     */
    synchronized int choose(
            Ask ask,
            List<String> fit,
            double[] place,
            IntUnaryOperator slots,
            IntFunction<int[]> cards,
            Policy current,
            Lookahead lookahead,
            NodeStates cluster) {
        if (policy != current) {
            policy = current;
            rollouts = new Rollouts(current, lookahead);
        }
        int[] top = rollouts.candidates(
                ask,
                cluster,
                fit.size(),
                i -> !Double.isNaN(place[i]),
                i -> cluster.node(slots.applyAsInt(i)),
                (a, b) -> before(a, b, place, fit));
        int count = top.length;
        if (count == 0) {
            return -1;
        }
        int[] candidates = new int[count];
        int[][] chosen = new int[count][];
        for (int j = 0; j < count; j++) {
            candidates[j] = slots.applyAsInt(top[j]);
            chosen[j] = cards.apply(top[j]);
        }
        return top[rollouts.choose(ask, cluster, candidates, chosen, count)];
    }

    /** Whether fitting node {@code a} ranks before {@code b}: a better place, or an equal one and an earlier name. */
    private static boolean before(int a, int b, double[] place, List<String> fit) {
        return place[a] > place[b] || (place[a] == place[b] && fit.get(a).compareTo(fit.get(b)) < 0);
    }
}
