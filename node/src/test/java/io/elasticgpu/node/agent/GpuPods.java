package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Pods as the extender leaves them on a node: bound, with their plan in the allocation annotation. */
final class GpuPods {

    static final String NODE = "gpu-node-1";

    private GpuPods() {}

    static Container container(String name, Map<String, String> limits) {
        Map<String, Quantity> q = new LinkedHashMap<>();
        limits.forEach((k, v) -> q.put(k, new Quantity(v)));
        return new ContainerBuilder()
                .withName(name)
                .withImage("cuda")
                .withNewResources()
                .withLimits(q)
                .withRequests(q)
                .endResources()
                .build();
    }

    /**
     * A pod whose containers the extender planned as {@code plan} (container → shares), assumed at {@code assumeTime}.
     * */
    static Pod pod(
            String name, long assumeTime, List<Container> init, List<Container> app, Map<String, List<Share>> plan) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("ml")
                .withUid("uid-" + name)
                .addToAnnotations(Annotations.ALLOCATION, new PodGrant(NODE, plan).toJson())
                .addToAnnotations(Annotations.ASSUME_TIME, Long.toString(assumeTime))
                .addToAnnotations(Annotations.PHASE, Annotations.PHASE_ASSUMED)
                .endMetadata()
                .withNewSpec()
                .withNodeName(NODE)
                .withInitContainers(init)
                .withContainers(app)
                .endSpec()
                .withNewStatus()
                .withPhase("Pending")
                .endStatus()
                .build();
    }
}
