package io.elasticgpu.core.policy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.snapshot.NodeState;

/**
 * Tetris-style alignment (the paper's DotProduct baseline): prefer the node whose free (CPU, GPU) vector is least
 * aligned with the ask, both normalised by the largest node (128 cores, 8 cards):
 * {@code floor(100 * (1 - (c*rc/128000^2 + G*R/8000^2) / 2))}. Cards by best fit.
 */
public final class DotProductPolicy implements Policy {

    static final double MAX_CPU_MILLI = 128_000;
    static final double MAX_GPU_MILLI = 8_000;

    @Override
    public String name() {
        return "dot-product";
    }

    @Override
    public Choice choose(Ask ask, NodeState s) {
        // Operation for operation as in the paper's artifact, so that truncation lands on the same integers.
        double nodeCpu = s.freeCpu() / MAX_CPU_MILLI;
        double nodeGpu = s.freeShareTotal() / MAX_GPU_MILLI;
        double podCpu = ask.cpuMilli() / MAX_CPU_MILLI;
        double podGpu = ask.totalMilli() / MAX_GPU_MILLI;
        double inner = 0;
        inner += nodeCpu * podCpu;
        inner += nodeGpu * podGpu;
        double score = 1 - inner / 2;
        return new Choice((long) (100.0 * score), ask.needsCards() ? CardChoice.tightest(ask, s) : new int[0]);
    }
}
