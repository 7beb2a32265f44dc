package io.elasticgpu.core.policy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.snapshot.NodeState;

/**
 * Production spreading: prefer the node that is emptiest after the placement, score {@code 100 * free / capacity};
 * a one-card slice takes the roomiest (least loaded) card, multi-card requests the best-linked set. Spreading keeps
 * per-card contention low at the price of fragmentation.
 */
public final class SpreadPolicy implements Policy {

    @Override
    public String name() {
        return "spread";
    }

    @Override
    public Choice choose(Ask ask, NodeState s) {
        if (!ask.needsCards()) {
            return new Choice(100 - Utilisation.cpuAfter(ask, s), new int[0]);
        }
        int[] cards = CardChoice.roomiest(ask, s);
        return new Choice(100 - Utilisation.gpuAfter(ask, s, cards), cards);
    }
}
