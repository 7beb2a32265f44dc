package io.elasticgpu.scheduler.cache;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.List;
import java.util.Map;

/**
 * What the fragmentation-aware policies estimate the expected workload from, as the cache showed it at one moment:
 * every GPU pod, bound or waiting; the pods without GPUs that belong to their workload (those bound to a node with
 * cards, those pending for a scheduler that GPU pods use, and those pending with ResourceClaims); and every
 * ResourceClaim by namespace/name. The FGD paper estimates it from every pod of its cluster; an estimate without the
 * pods without GPUs allocates 0.4 points less of the openb trace. Immutable.
 */
public record Workload(List<Pod> gpuPods, List<HostPod> hostPods, Map<String, ResourceClaim> claims) {

    public Workload {
        gpuPods = List.copyOf(gpuPods);
        hostPods = List.copyOf(hostPods);
        claims = Map.copyOf(claims);
    }
}
