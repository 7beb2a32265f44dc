package io.elasticgpu.scheduler.decision;

import io.elasticgpu.api.v1alpha1.DraAsks;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.cache.HostPod;
import io.elasticgpu.scheduler.cache.PodResources;
import io.elasticgpu.scheduler.cache.Workload;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What the pods that name no card by resource name add to the GPU pods' workload estimate: a pod without GPUs its
 * CPU and memory; a DRA pod its CPU and memory together with its claims' cards, one pod as the simulator and the
 * device plugin path see it (counted apart, the estimate's typical pods would be cards without CPU beside CPU without
 * cards, and the policy would judge the nodes' leftovers against pods nobody runs); and a claim of ours that no such
 * pod names yet, its cards. The claim kube-scheduler makes for a pod asking our extended resource on a DRA node
 * (KEP-5004) adds nothing: that pod is a GPU pod, already counted by what it asks.
 */
public final class HostWorkload {

    private HostWorkload() {}

    public static List<Ask> of(ClusterCache cache, PodAsks.Units units) {
        Workload workload = cache.workload();
        List<Ask> asks = new ArrayList<>();
        Set<String> named = new HashSet<>();
        for (HostPod pod : workload.hostPods()) {
            named.addAll(pod.claims());
            List<ResourceClaim> claims = pod.claims().stream()
                    .map(workload.claims()::get)
                    .filter(Objects::nonNull)
                    .toList();
            List<Ask> cardAsks =
                    PodAsk.workload(claims, new PodResources.Totals(pod.cpuMilli(), pod.memoryMib()), units);
            if (!cardAsks.isEmpty()) {
                asks.addAll(cardAsks);
            } else if (pod.node() != null || pod.claims().isEmpty()) {
                asks.add(Ask.cpuOnly(pod.cpuMilli(), pod.memoryMib())); // pending with other drivers' claims: not ours
            }
        }
        for (var e : workload.claims().entrySet()) {
            ResourceClaim claim = e.getValue();
            if (!named.contains(e.getKey()) && !DraAsks.madeForExtendedResource(claim)) {
                asks.addAll(PodAsk.workload(List.of(claim), new PodResources.Totals(0, 0), units));
            }
        }
        return asks;
    }
}
