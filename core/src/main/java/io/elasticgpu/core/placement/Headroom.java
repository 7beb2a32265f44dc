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
 * The cluster's GPU per model, kept up to date node by node (its cards, its free GPU, and for each k its idle cards
 * in sets of k on one node), and which nodes are open to an ask under a {@link ModelReserve}: those whose model,
 * once the ask is placed there, still has free what it keeps for narrower pods. Not thread-safe.
 */
final class Headroom {

    /**
     * How many times what a model keeps from an ask it must still have free once the ask is placed there. A
     * fixed constant: 1.5 placed more than 1 on the openb gpuspec33 trace (94.75 against 93.28 %, seeds 42 and 43)
     * and the same within 0.1 on traces where a tenth to a third of the pods name models.
     */
    static final double MARGIN = 1.5;

    private final ModelReserve reserve;
    private final int most;
    /** Per model: [0] its cards, [1] its free GPU, [k] its idle cards in whole sets of k per node, milli-cards. */
    private final Map<String, long[]> models = new HashMap<>();

    private final Map<List<String>, Map<String, ModelReserve.Kept>> kept = new HashMap<>();
    private long free;

    Headroom(ModelReserve reserve) {
        this.reserve = requireNonNull(reserve, "reserve");
        this.most = reserve.mostCards();
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
        long[] m = models.computeIfAbsent(node.node().model(), k -> new long[Math.max(2, most + 1)]);
        m[0] += sign * (long) node.cardCount() * Card.WHOLE;
        m[1] += sign * node.freeShareTotal();
        int idle = node.idleHealthyCards();
        for (int k = 2; k <= most; k++) {
            m[k] += sign * (long) (idle / k) * k * Card.WHOLE;
        }
        free += sign * node.freeShareTotal();
    }

    /** Whether what the cluster's models keep depends on the ask at all: not when no pod names a model. */
    boolean active() {
        return reserve.active();
    }

    /**
     * Whether {@code node} is open to {@code ask} taking {@code cards} there: whether its model, once the ask
     * is placed, still has free what it keeps for pods narrower than the ask.
     */
    boolean open(Ask ask, NodeState node, int[] cards) {
        if (!reserve.active()) {
            return true;
        }
        Map<String, ModelReserve.Kept> keeps = kept.computeIfAbsent(ask.models(), a -> reserve.kept(a, capacities()));
        return keeps.isEmpty() || open(ask, node, cards, keeps);
    }

    private boolean open(Ask ask, NodeState node, int[] cards, Map<String, ModelReserve.Kept> keeps) {
        if (node == null || node.cardCount() == 0) {
            return true;
        }
        ModelReserve.Kept keep = keeps.get(node.node().model());
        if (keep == null) {
            return true;
        }
        long[] m = models.get(node.node().model());
        long asked = (long) ask.cards() * ask.shareOf(node.card(0));
        if (m[1] - asked < MARGIN * keep.gpu() * free) {
            return false;
        }
        int idle = node.idleHealthyCards();
        int taken = 0;
        for (int c : cards) {
            if (node.idle(c) && node.card(c).healthy()) {
                taken++;
            }
        }
        for (int k = 2; k < keep.idle().length; k++) {
            if (keep.idle()[k] > 0) {
                long lost = (long) (idle / k - (idle - taken) / k) * k * Card.WHOLE;
                if (m[k] - lost < MARGIN * keep.idle()[k] * free) {
                    return false;
                }
            }
        }
        return true;
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
