package io.elasticgpu.core.policy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.snapshot.NodeState;

/** How full a node would be after a placement, 0..100, for the production policies. */
final class Utilisation {

    private Utilisation() {}

    static double cpuAfter(Ask ask, NodeState s) {
        long capacity = s.node().cpuMilli();
        return capacity == 0 ? 100 : 100.0 * (capacity - s.freeCpu() + ask.cpuMilli()) / capacity;
    }

    static double gpuAfter(Ask ask, NodeState s, int[] cards) {
        long capacity = 0;
        for (int i = 0; i < s.cardCount(); i++) {
            if (s.card(i).healthy()) {
                capacity += s.card(i).computeMilli();
            }
        }
        long taken = 0;
        for (int c : cards) {
            taken += ask.shareOf(s.card(c));
        }
        return capacity == 0 ? 100 : 100.0 * (capacity - s.freeShareTotal() + taken) / capacity;
    }
}
