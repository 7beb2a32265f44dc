package io.elasticgpu.core.policy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.Map;

/**
 * The paper's GpuClustering baseline: keep pods of one kind ({@link Ask#tag()}) together. Base 75 when the
 * node holds only GPU pods of this kind, 50 when it holds this kind and others, 25 when it holds no GPU pods, 0 when
 * it holds only other kinds; plus {@code floor(25 * (8000 - G) / 8000)} to prefer fuller nodes. CPU-only pods score
 * 0 everywhere. Cards by best fit.
 */
public final class GpuClusteringPolicy implements Policy {

    @Override
    public String name() {
        return "gpu-clustering";
    }

    @Override
    public Choice choose(Ask ask, NodeState s) {
        if (!ask.needsCards()) {
            return new Choice(0, new int[0]);
        }
        Map<String, Integer> tags = s.gpuPodTags();
        long base;
        if (tags.containsKey(ask.tag())) {
            base = tags.size() == 1 ? 75 : 50;
        } else {
            base = tags.isEmpty() ? 25 : 0;
        }
        long fullness = 25 * (8_000 - s.freeShareTotal()) / 8_000;
        return new Choice(fullness + base, CardChoice.tightest(ask, s));
    }
}
