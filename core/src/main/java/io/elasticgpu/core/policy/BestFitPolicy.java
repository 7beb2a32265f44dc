package io.elasticgpu.core.policy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.snapshot.NodeState;

/**
 * The paper's BestFit baseline: prefer the node with the least left over,
 * {@code floor(100 * (1 - (0.5 * (c - rc) / 128000 + 0.5 * (G - R) / 8000)))}, then min-max normalised over the
 * nodes that fit to 0..100 with integer arithmetic. Cards by best fit.
 */
public final class BestFitPolicy implements Policy {

    @Override
    public String name() {
        return "best-fit";
    }

    @Override
    public Choice choose(Ask ask, NodeState s) {
        // Operation for operation as in the paper's artifact.
        double leftover = 0;
        leftover += (double) (s.freeCpu() - ask.cpuMilli()) / DotProductPolicy.MAX_CPU_MILLI * 0.5;
        leftover += (double) (s.freeShareTotal() - ask.totalMilli()) / DotProductPolicy.MAX_GPU_MILLI * 0.5;
        double score = (1.0 - leftover) * 100;
        return new Choice((long) score, ask.needsCards() ? CardChoice.tightest(ask, s) : new int[0]);
    }

    @Override
    public void normalize(double[] scores, int count) {
        long lowest = Long.MAX_VALUE;
        long highest = Long.MIN_VALUE;
        for (int i = 0; i < count; i++) {
            lowest = Math.min(lowest, (long) scores[i]);
            highest = Math.max(highest, (long) scores[i]);
        }
        long range = highest - lowest;
        for (int i = 0; i < count; i++) {
            scores[i] = range == 0 ? 0 : ((long) scores[i] - lowest) * 100 / range;
        }
    }
}
