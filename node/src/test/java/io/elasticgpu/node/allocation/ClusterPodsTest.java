package io.elasticgpu.node.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ClusterPodsTest {

    private static final PodAsks.Units UNITS = new PodAsks.Units(
            256, 1024, ResourceNames.GPU, ResourceNames.GPU_MEMORY, ResourceNames.GPU_CORE, ResourceNames.GPU_COUNT);

    /**
     * A pod asking one card's share whose allocation (as the extender writes it) names {@code cards} of {@code node}.
     * */
    private static Pod pod(String node, String phase, int... cards) {
        List<Share> shares = java.util.Arrays.stream(cards)
                .mapToObj(c -> new Share(c, "GPU-" + c, 1000, 0))
                .toList();
        PodBuilder b = new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .withNamespace("default")
                .withUid(UUID.randomUUID().toString())
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("main")
                .withNewResources()
                .addToLimits(ResourceNames.GPU, new Quantity(Integer.toString(Math.max(1, cards.length))))
                .endResources()
                .endContainer()
                .endSpec()
                .withNewStatus()
                .withPhase(phase)
                .endStatus();
        Pod p = b.build();
        if (cards.length > 0) {
            p.getMetadata()
                    .setAnnotations(
                            Map.of(Annotations.ALLOCATION, new PodGrant(node, Map.of("main", shares)).toJson()));
        }
        return p;
    }

    @Test
    void heldCardsAreThoseTheLivePodsAllocationsNameOnThisNode() {
        List<Pod> pods = List.of(
                pod("n1", "Running", 0),
                pod("n1", "Pending", 2, 3), // admitted, starting: holds its cards
                pod("n1", "Succeeded", 1), // ended: holds nothing
                pod("n2", "Running", 1), // another node's allocation
                pod("n1", "Pending")); // asks, but no allocation yet: holds nothing known

        assertThat(ClusterPods.heldCards(pods, "n1", UNITS)).containsExactly(0, 2, 3);
        assertThat(ClusterPods.heldCards(List.of(), "n1", UNITS)).isEmpty();
    }
}
