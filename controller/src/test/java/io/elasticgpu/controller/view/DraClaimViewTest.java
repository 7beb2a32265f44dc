package io.elasticgpu.controller.view;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.NodeUsage.ContainerUsage;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Cards held through DRA claims are counted with those held through pods' allocations, by the same view. */
class DraClaimViewTest {

    private static ResourceClaim claim(
            String name, String pod, String pool, String device, Map<String, Quantity> consumed) {
        return new ResourceClaimBuilder()
                .withNewMetadata()
                .withNamespace("ml")
                .withName(name)
                .endMetadata()
                .withNewStatus()
                .withNewAllocation()
                .withNewDevices()
                .addToResults(new DeviceRequestAllocationResultBuilder()
                        .withDriver(DraNames.DRIVER)
                        .withPool(pool)
                        .withDevice(device)
                        .withRequest("gpu")
                        .withConsumedCapacity(consumed)
                        .build())
                .endDevices()
                .endAllocation()
                .addNewReservedFor()
                .withResource("pods")
                .withName(pod)
                .withUid("uid-" + pod)
                .endReservedFor()
                .endStatus()
                .build();
    }

    private static CardView card(ClusterView view, String node, int index) {
        return view.nodes().stream()
                .filter(n -> n.name().equals(node))
                .findFirst()
                .orElseThrow()
                .cards()
                .get(index);
    }

    @Test
    void aClaimsConsumedCapacityIsAddedToItsCardBesideThePodsThere() {
        // gpu-t2 card 0 holds 10240 MiB and 30 % through pods (ClusterFixture); a claim adds 4 GiB and 25 %.
        ResourceClaim slice = claim(
                "slice",
                "dra-infer",
                "gpu-t2",
                "gpu-0",
                Map.of(DraNames.MEMORY, new Quantity("4Gi"), DraNames.CORES, new Quantity("25")));

        ClusterView view = ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods(), List.of(slice), Scope.ALL);

        CardView card = card(view, "gpu-t2", 0);
        assertThat(card.memoryGrantedMib()).isEqualTo(10240 + 4096);
        assertThat(card.computeGrantedPercent()).isEqualTo(55);
        assertThat(card.holders())
                .filteredOn(h -> h.phase().equals("dra"))
                .singleElement()
                .satisfies(h -> {
                    assertThat(h.podName()).isEqualTo("ml/dra-infer");
                    assertThat(h.container()).isEqualTo("claim/slice");
                    assertThat(h.memoryMib()).isEqualTo(4096);
                    assertThat(h.percent()).isEqualTo(25);
                });
        assertThat(view.summary().podsHoldingCards())
                .isEqualTo(ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods())
                                .summary()
                                .podsHoldingCards()
                        + 1);
    }

    @Test
    void aClaimWithoutConsumedCapacityHoldsTheWholeCardAndOverCommitIsAProblem() {
        // card 4 of gpu-a8 already holds 28672 MiB through pods: a whole-card claim over-commits it.
        ResourceClaim whole = claim("whole", "dra-train", "gpu-a8", "gpu-4", null);

        ClusterView view = ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods(), List.of(whole), Scope.ALL);

        assertThat(card(view, "gpu-a8", 4).memoryGrantedMib()).isEqualTo(28672 + ClusterFixture.A100_MIB);
        assertThat(view.problems()).extracting(Problem::reason).anyMatch(r -> r.contains("card 4 is over-committed"));
    }

    @Test
    void aClaimOnAPoolOrDeviceThatIsNoCardOfOursIsAProblemAndCountedNowhere() {
        ClusterView base = ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods());
        ClusterView view = ClusterView.of(
                ClusterFixture.nodes(),
                ClusterFixture.pods(),
                List.of(
                        claim("lost", "p1", "no-such-node", "gpu-0", null),
                        claim("odd", "p2", "gpu-t2", "gpu-7", null),
                        claim("unallocated", "p3", "gpu-t2", "gpu-0", null)
                                .edit()
                                .editStatus()
                                .withAllocation(null)
                                .endStatus()
                                .build()),
                Scope.ALL);

        assertThat(view.summary()).isEqualTo(base.summary());
        assertThat(view.problems())
                .extracting(Problem::object)
                .contains("claim ml/lost", "claim ml/odd")
                .doesNotContain("claim ml/unallocated");
    }

    @Test
    void aClaimUsesWhatThePodsItIsReservedForUseOnItsCard() {
        // shared by two pods; dra-infer runs two containers on card 0 and one on card 1, dra-warm one on card 0
        ResourceClaim shared = claim(
                        "shared",
                        "dra-infer",
                        "gpu-t2",
                        "gpu-0",
                        Map.of(DraNames.MEMORY, new Quantity("4Gi"), DraNames.CORES, new Quantity("25")))
                .edit()
                .editStatus()
                .addNewReservedFor()
                .withResource("pods")
                .withName("dra-warm")
                .withUid("uid-dra-warm")
                .endReservedFor()
                .endStatus()
                .build();
        NodeUsage usage = new NodeUsage(
                ClusterFixture.MEASURED,
                List.of(
                        new ContainerUsage("ml", "dra-infer", "main", 0, 3072, 10, 1),
                        new ContainerUsage("ml", "dra-infer", "sidecar", 0, 512, 5, 1),
                        new ContainerUsage("ml", "dra-infer", "main", 1, 700, 3, 1),
                        new ContainerUsage("ml", "dra-warm", "main", 0, 1024, 20, 1),
                        new ContainerUsage("team-b", "dra-infer", "main", 0, 999, 1, 1)),
                List.of());

        ClusterView view = ClusterView.of(
                ClusterFixture.nodesWithUsage("gpu-t2", usage.toJson()),
                ClusterFixture.pods(),
                List.of(shared),
                Scope.ALL);

        // on card 0, of namespace ml: 3072 + 512 + 1024 MiB at 10 + 5 + 20 % SM
        assertThat(card(view, "gpu-t2", 0).holders())
                .filteredOn(h -> h.phase().equals("dra"))
                .containsExactly(
                        new Holder("ml", "dra-infer,dra-warm", "claim/shared", 4096, 25, "dra", 3072 + 512 + 1024, 35));
        assertThat(card(view, "gpu-t2", 0).memoryUsedMib()).isEqualTo(3072 + 512 + 1024 + 999);
    }
}
