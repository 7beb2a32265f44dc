package io.elasticgpu.controller.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec.BindingMode;
import io.elasticgpu.api.v1alpha1.ElasticGPUResources;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class StaticBindingTest {

    private static final List<StaticBinding.Offer> OFFERS = List.of(
            new StaticBinding.Offer(
                    "b-big", Map.of("elasticgpu.io/gpu-memory", 16_384L, "elasticgpu.io/gpu-core", 100L)),
            new StaticBinding.Offer(
                    "a-small", Map.of("elasticgpu.io/gpu-memory", 4096L, "elasticgpu.io/gpu-core", 25L)),
            new StaticBinding.Offer("c-card", Map.of("elasticgpu.io/gpu", 1L)));

    @Test
    void pendingImmediateClaimsAreBoundToTheFirstAvailableElasticGpuByNameThatCoversEveryRequest() {
        ClaimBook book = book(
                claim("fits-small", "now", Map.of("elasticgpu.io/gpu-memory", "4096")), // a-small: 4096 ≥ 4096
                claim("needs-big", "now", Map.of("elasticgpu.io/gpu-memory", "8192")), // a-small: 4096 < 8192; b-big
                claim("whole", "now", Map.of("elasticgpu.io/gpu", "1")), // c-card
                claim("later", "wait", Map.of("elasticgpu.io/gpu-memory", "1024")), // WaitForFirstConsumer
                claim("two-cards", "now", Map.of("elasticgpu.io/gpu-memory", "1024", "elasticgpu.io/gpu-count", "2")));
        Map<ClaimKey, ClaimState> pending =
                book.claims().stream().collect(Collectors.toMap(ClaimKey::of, c -> ClaimState.PENDING));

        assertThat(StaticBinding.of(book, pending, OFFERS))
                .isEqualTo(Map.of(
                        new ClaimKey("ml", "fits-small"), "a-small",
                        new ClaimKey("ml", "needs-big"), "b-big",
                        new ClaimKey("ml", "whole"), "c-card"));
    }

    @Test
    void aBoundClaimIsNotBoundAgainAndAnElasticGpuGoesToOneClaimOnly() {
        ClaimBook book = book(
                claim("a", "now", Map.of("elasticgpu.io/gpu", "1")),
                claim("b", "now", Map.of("elasticgpu.io/gpu", "1")),
                claim("bound", "now", Map.of("elasticgpu.io/gpu", "1")));
        Map<ClaimKey, ClaimState> states = Map.of(
                new ClaimKey("ml", "a"),
                ClaimState.PENDING,
                new ClaimKey("ml", "b"),
                ClaimState.PENDING,
                new ClaimKey("ml", "bound"),
                ClaimState.bound("x"));

        assertThat(StaticBinding.of(book, states, OFFERS)).isEqualTo(Map.of(new ClaimKey("ml", "a"), "c-card"));
    }

    private static ClaimBook book(ElasticGPUClaim... claims) {
        return new ClaimBook(
                List.of(claims),
                List.of(gpuClass("now", BindingMode.Immediate), gpuClass("wait", BindingMode.WaitForFirstConsumer)));
    }

    private static ElasticGPUClaim claim(String name, String className, Map<String, String> requests) {
        ElasticGPUClaim claim = ClaimStatesTest.claim(name, "uid-" + name);
        claim.getSpec().setElasticGPUClassName(className);
        ElasticGPUResources resources = new ElasticGPUResources();
        resources.setRequests(requests.entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> new Quantity(e.getValue()))));
        claim.getSpec().setResources(resources);
        return claim;
    }

    private static ElasticGPUClass gpuClass(String name, BindingMode mode) {
        ElasticGPUClass gpuClass = new ElasticGPUClass();
        ObjectMeta meta = new ObjectMeta();
        meta.setName(name);
        gpuClass.setMetadata(meta);
        ElasticGPUClassSpec spec = new ElasticGPUClassSpec();
        spec.setBindingMode(mode);
        gpuClass.setSpec(spec);
        return gpuClass;
    }
}
