package io.elasticgpu.core.policy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.snapshot.NodeState;

/**
 * Production packing: prefer the node that is fullest after the placement (GPU share for GPU pods, CPU for CPU-only
 * pods), score {@code 100 * used / capacity}; a one-card slice takes the tightest card, multi-card requests the
 * best-linked set. Packing keeps whole nodes and whole cards free for large pods.
 */
public final class BinpackPolicy implements Policy {

    @Override
    public String name() {
        return "binpack";
    }

    @Override
    public Choice choose(Ask ask, NodeState s) {
        if (!ask.needsCards()) {
            return new Choice(Utilisation.cpuAfter(ask, s), new int[0]);
        }
        int[] cards = CardChoice.tightest(ask, s);
        return new Choice(Utilisation.gpuAfter(ask, s, cards), cards);
    }
}
