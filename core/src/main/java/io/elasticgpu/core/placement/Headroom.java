package io.elasticgpu.core.placement;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.policy.ModelReserve;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster's GPU per model, kept up to date node by node (its cards and its free GPU), and which nodes are open to
 * an ask under a {@link ModelReserve}: those whose model, once the ask is placed there, still has free what it keeps
 * for narrower pods. Not thread-safe.
 */
final class Headroom {

    /**
     * How many times what a model keeps from an ask it must still have free once the ask is placed there. A fixed
     * constant, chosen on two seeds of seven traces where a tenth to a third of the GPU pods name models and then
     * checked on four others: 3 placed more than 1.5 on the production mix at a fifth (95.59 against 95.41 %) and on
     * the capacity mix at a third (95.09 against 94.78), the same within 0.15 elsewhere, and no fewer on the held-out
     * traces (docs/results/placement-lookahead.md).
     */
    static final double MARGIN = 3;

    private final ModelReserve reserve;
    /** Per model: [0] its cards, [1] its free GPU, milli-cards. */
    private final Map<String, long[]> models = new HashMap<>();

    private final Map<List<String>, Map<String, Double>> kept = new HashMap<>();
    private long free;

    Headroom(ModelReserve reserve) {
        this.reserve = requireNonNull(reserve, "reserve");
    }

    /** Takes in that the node {@code was} (null: none) is now {@code now} (null: gone). */
    void replace(NodeState was, NodeState now) {
        if (!reserve.active()) {
            return;
        }
        add(was, -1);
        add(now, 1);
        if (was == null
                || now == null
                || was.cardCount() != now.cardCount()
                || !was.node().model().equals(now.node().model())) {
            kept.clear(); // the models' capacities changed: what each keeps is spread anew
        }
    }

    private void add(NodeState node, int sign) {
        if (node == null || node.cardCount() == 0) {
            return;
        }
        long[] m = models.computeIfAbsent(node.node().model(), k -> new long[2]);
        m[0] += sign * (long) node.cardCount() * Card.WHOLE;
        m[1] += sign * node.freeShareTotal();
        free += sign * node.freeShareTotal();
    }

    /** Whether what the cluster's models keep depends on the ask at all: not when no pod names a model. */
    boolean active() {
        return reserve.active();
    }

    /**
     * Whether {@code node} is open to {@code ask}: whether its model, once the ask is placed, still has free
     * {@link #MARGIN} times what it keeps for pods narrower than the ask.
     */
    boolean open(Ask ask, NodeState node) {
        if (!reserve.active() || node == null || node.cardCount() == 0) {
            return true;
        }
        Double keep = kept.computeIfAbsent(ask.models(), a -> reserve.kept(a, capacities()))
                .get(node.node().model());
        if (keep == null) {
            return true;
        }
        long asked = (long) ask.cards() * ask.shareOf(node.card(0));
        return models.get(node.node().model())[1] - asked >= MARGIN * keep * free;
    }

    private Map<String, Long> capacities() {
        Map<String, Long> out = new HashMap<>();
        models.forEach((m, c) -> {
            if (c[0] > 0) {
                out.put(m, c[0]);
            }
        });
        return out;
    }
}
