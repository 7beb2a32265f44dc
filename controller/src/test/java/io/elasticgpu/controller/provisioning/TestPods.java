package io.elasticgpu.controller.provisioning;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.ClaimAnnotations;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;

/** Pods, claims and classes as the API server would list them. */
final class TestPods {

    private TestPods() {}

    static String uuid(String node, int card) {
        return "GPU-%s-%d".formatted(node, card);
    }

    /** A running pod on {@code node} with one container {@code main} asking {@code limits}, holding {@code shares}. */
    static Pod pod(String name, String uid, String node, Map<String, String> limits, List<PodGrant.Share> shares) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("ml")
                .withName(name)
                .withUid(uid)
                .addToAnnotations(Annotations.ALLOCATION, new PodGrant(node, Map.of("main", shares)).toJson())
                .addToAnnotations(Annotations.PHASE, Annotations.PHASE_ALLOCATED)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("main")
                .withNewResources()
                .withLimits(limits.entrySet().stream()
                        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> new Quantity(e.getValue()))))
                .endResources()
                .endContainer()
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .endStatus()
                .build();
    }

    static Pod slicePod(String name, String uid, String node, int card, int milli, long memoryMib) {
        return pod(
                name,
                uid,
                node,
                Map.of(
                        "elasticgpu.io/gpu-memory",
                        Long.toString(memoryMib),
                        "elasticgpu.io/gpu-core",
                        Integer.toString(milli / 10)),
                List.of(new PodGrant.Share(card, uuid(node, card), milli, memoryMib)));
    }

    static Pod withClaim(Pod pod, String claim) {
        pod.getMetadata().getAnnotations().put(ClaimAnnotations.key("main"), claim);
        return pod;
    }

    static ElasticGPUClaim claim(String name, String uid, String className) {
        ElasticGPUClaim claim = new ElasticGPUClaim();
        ObjectMeta meta = new ObjectMeta();
        meta.setNamespace("ml");
        meta.setName(name);
        meta.setUid(uid);
        claim.setMetadata(meta);
        ElasticGPUClaimSpec spec = new ElasticGPUClaimSpec();
        spec.setElasticGPUClassName(className);
        claim.setSpec(spec);
        return claim;
    }

    static ElasticGPUClass gpuClass(String name, ElasticGPUClassSpec.ReclaimPolicy policy) {
        ElasticGPUClass gpuClass = new ElasticGPUClass();
        ObjectMeta meta = new ObjectMeta();
        meta.setName(name);
        gpuClass.setMetadata(meta);
        ElasticGPUClassSpec spec = new ElasticGPUClassSpec();
        spec.setProvisioner(ElasticGPUClassSpec.Provisioner.GPU_SHARE);
        spec.setReclaimPolicy(policy);
        gpuClass.setSpec(spec);
        return gpuClass;
    }
}
