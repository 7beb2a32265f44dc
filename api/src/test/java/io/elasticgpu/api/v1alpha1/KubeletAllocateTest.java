package io.elasticgpu.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KubeletAllocateTest {

    private static final PodAsks.Units UNITS = PodAsks.Units.DEFAULT;

    private static Pod pod(Map<String, String> limits) {
        Map<String, Quantity> q = new LinkedHashMap<>();
        limits.forEach((k, v) -> q.put(k, new Quantity(v)));
        return new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withNewResources()
                .withLimits(q)
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }

    private static PodGrant plan(Share... shares) {
        return new PodGrant("n", Map.of("main", List.of(shares)));
    }

    private static Share share(int card, int milli, long mib) {
        return new Share(card, "GPU-" + card, milli, mib);
    }

    @Test
    void theSameCountOfOneAdvertisedResourceWithAnotherShareIsALookalike() {
        Pod small = pod(Map.of("nvidia.com/gpu", "1", "nvidia.com/gpumem", "2048", "nvidia.com/gpucores", "10"));
        Pod big = pod(Map.of("nvidia.com/gpu", "1", "nvidia.com/gpumem", "4096", "nvidia.com/gpucores", "20"));
        assertThat(KubeletAllocate.lookalike(small, plan(share(0, 100, 2048)), big, plan(share(1, 200, 4096)), UNITS))
                .as("the qualifiers are not advertised: kubelet shows both as one nvidia.com/gpu")
                .contains("nvidia.com/gpu: 1");
    }

    @Test
    void oneCardAndTwoCardsOfTheSameCoreCountAreLookalikes() {
        Pod one = pod(Map.of("elasticgpu.io/gpu-core", "30"));
        Pod two = pod(Map.of("elasticgpu.io/gpu-core", "30", "elasticgpu.io/gpu-count", "2"));
        assertThat(KubeletAllocate.lookalike(
                        one, plan(share(0, 300, 0)), two, plan(share(0, 300, 0), share(1, 300, 0)), UNITS))
                .contains("elasticgpu.io/gpu-core: 30");
    }

    @Test
    void theSameShareOnOtherCardsOrAnotherCountIsNot() {
        Pod a = pod(Map.of("nvidia.com/gpu", "1", "nvidia.com/gpumem", "2048"));
        Pod b = pod(Map.of("nvidia.com/gpu", "1", "nvidia.com/gpumem", "2048"));
        assertThat(KubeletAllocate.lookalike(a, plan(share(0, 100, 2048)), b, plan(share(1, 100, 2048)), UNITS))
                .as("a wrong guess swaps equal shares, which the agent records")
                .isEmpty();
        Pod c = pod(Map.of("elasticgpu.io/gpu-core", "30"));
        Pod d = pod(Map.of("elasticgpu.io/gpu-core", "40"));
        assertThat(KubeletAllocate.lookalike(c, plan(share(0, 300, 0)), d, plan(share(0, 400, 0)), UNITS))
                .isEmpty();
    }
}
