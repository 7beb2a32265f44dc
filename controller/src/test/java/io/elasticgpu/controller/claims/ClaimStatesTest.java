package io.elasticgpu.controller.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.ClaimAnnotations;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimSpec;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClaimStatesTest {

    private static final ClaimKey NOTEBOOK = new ClaimKey("ml", "notebook");
    private static final NodeInventory GPU_T2 = new NodeInventory(
            List.of(
                    new NodeInventory.Card(0, "GPU-0", "Tesla T4", 15360, true, 0),
                    new NodeInventory.Card(1, "GPU-1", "Tesla T4", 15360, false, 0)),
            List.of());

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            nullValues = "-",
            value = {
                "no ElasticGPU held for it                       | -          | -     | 0 | Pending | -",
                "held on a healthy card                          | gpu-t2-0-a | c-1   | 0 | Bound   | gpu-t2-0-a",
                "held on a card the inventory reports unhealthy  | gpu-t2-1-a | c-1   | 1 | Lost    | gpu-t2-1-a",
                "held on a card the node no longer has           | gpu-t2-5-a | c-1   | 5 | Lost    | gpu-t2-5-a",
                "held for an earlier claim of the same name      | gpu-t2-0-a | c-old | 0 | Pending | -",
            })
    void aClaimsPhaseFollowsFromWhatIsHeldForItAndTheHealthOfThatCard(
            String why, String gpu, String holdingUid, int card, String phase, String gpuName) {
        ClaimBook book = new ClaimBook(List.of(claim("notebook", "c-1")), List.of());
        List<Holding> holdings =
                gpu == null ? List.of() : List.of(new Holding(gpu, NOTEBOOK, holdingUid, "gpu-t2", card));

        Map<ClaimKey, ClaimState> states = ClaimStates.of(book, holdings, Map.of("gpu-t2", GPU_T2));

        assertThat(states).containsOnlyKeys(NOTEBOOK);
        assertThat(states.get(NOTEBOOK).phase().name()).isEqualTo(phase);
        assertThat(states.get(NOTEBOOK).elasticGpuName()).isEqualTo(gpuName);
    }

    @org.junit.jupiter.api.Test
    void whenSeveralPodsUseOneClaimItIsBoundToTheFirstElasticGpuByName() {
        ClaimBook book = new ClaimBook(List.of(claim("notebook", "c-1")), List.of());
        List<Holding> holdings =
                List.of(new Holding("n-1-b", NOTEBOOK, "c-1", "n", 1), new Holding("n-0-a", NOTEBOOK, "c-1", "n", 0));

        assertThat(ClaimStates.of(book, holdings, Map.of()).get(NOTEBOOK)).isEqualTo(ClaimState.bound("n-0-a"));
    }

    @org.junit.jupiter.api.Test
    void claimAnnotationsNameOneClaimPerContainer() {
        var pod = new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata()
                .addToAnnotations("elasticgpu.io/egpuc-train", "notebook")
                .addToAnnotations("elasticgpu.io/egpuc-", "ignored: no container")
                .addToAnnotations("elasticgpu.io/allocation", "{}")
                .endMetadata()
                .build();

        assertThat(ClaimAnnotations.of(pod)).isEqualTo(Map.of("train", "notebook"));
    }

    static ElasticGPUClaim claim(String name, String uid) {
        ElasticGPUClaim claim = new ElasticGPUClaim();
        ObjectMeta meta = new ObjectMeta();
        meta.setNamespace("ml");
        meta.setName(name);
        meta.setUid(uid);
        claim.setMetadata(meta);
        claim.setSpec(new ElasticGPUClaimSpec());
        return claim;
    }
}
