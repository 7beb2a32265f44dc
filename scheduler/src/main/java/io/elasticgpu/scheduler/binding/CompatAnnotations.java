package io.elasticgpu.scheduler.binding;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.GpuAsk;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.Node;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The annotations a bound pod carries: ours (allocation, assume time, phase) always, and those the device plugins
 * of Aliyun gpushare and Volcano read, for pods that asked by their names, so that they keep working unchanged.
 */
final class CompatAnnotations {

    private CompatAnnotations() {}

    static Map<String, String> of(
            PodGrant allocation, List<GpuAsk> asks, Node node, long assumeNanos, long aliyunUnitMib) {
        Map<String, String> out = new LinkedHashMap<>();
        out.put(Annotations.ALLOCATION, allocation.toJson());
        out.put(Annotations.ASSUME_TIME, Long.toString(assumeNanos));
        out.put(Annotations.PHASE, Annotations.PHASE_ASSUMED);
        for (GpuAsk ask : asks) {
            List<PodGrant.Share> shares = allocation.containers().getOrDefault(ask.container(), List.of());
            if (shares.isEmpty()) {
                continue;
            }
            String indexes =
                    shares.stream().map(s -> Integer.toString(s.card())).collect(Collectors.joining(","));
            switch (ask.family()) {
                case ALIYUN -> {
                    long cardMemory = node.cards().get(shares.getFirst().card()).memoryMib();
                    out.put(Annotations.ALIYUN_INDEX, indexes);
                    out.put(Annotations.ALIYUN_POD_MEMORY, Long.toString(ask.memoryMib() / aliyunUnitMib));
                    out.put(Annotations.ALIYUN_CARD_MEMORY, Long.toString(cardMemory / aliyunUnitMib));
                    out.put(Annotations.ALIYUN_ASSUME_TIME, Long.toString(assumeNanos));
                    out.put(Annotations.ALIYUN_ASSIGNED, "false");
                }
                case VOLCANO -> {
                    out.put(Annotations.VOLCANO_INDEX, indexes);
                    out.put(Annotations.VOLCANO_PREDICATE_TIME, Long.toString(assumeNanos));
                    out.put(Annotations.VOLCANO_ASSIGNED, "false");
                }
                default -> {
                    // Elastic GPU's and NVIDIA's names need nothing beyond the allocation
                }
            }
        }
        return out;
    }
}
