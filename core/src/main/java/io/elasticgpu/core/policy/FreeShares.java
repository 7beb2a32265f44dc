package io.elasticgpu.core.policy;

import io.elasticgpu.core.snapshot.NodeState;

/** A scratch copy of a node's per-card free share that a policy may change while it tries placements. */
final class FreeShares {

    private FreeShares() {}

    static int[] of(NodeState s) {
        int[] free = new int[s.cardCount()];
        for (int i = 0; i < free.length; i++) {
            free[i] = s.freeShare(i);
        }
        return free;
    }
}
