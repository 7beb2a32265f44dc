package io.elasticgpu.node.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.allocation.ContainerKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RebuiltHoldsTest {

    @Test
    void theMessageNamesEachContainerWithItsCardsMemoryAndCompute() {
        Map<ContainerKey, List<Share>> held = new LinkedHashMap<>();
        held.put(new ContainerKey("team", "train", "main"), List.of(new Share(2, "GPU-2", 300, 4096)));
        held.put(
                new ContainerKey("team", "pair", "main"),
                List.of(new Share(0, "GPU-0", 1000, 16_384), new Share(1, "GPU-1", 125, 512)));

        assertThat(RebuiltHolds.message(held))
                .isEqualTo("started with no state of its own: kubelet's records and the API show 2 containers holding"
                        + " cards of this node, counted against them before any new answer: team/train/main: card 2"
                        + " (4096 MiB, 30 %); team/pair/main: card 0 (16384 MiB, 100 %), card 1 (512 MiB, 12.5 %)");
    }

    @Test
    void aNodeWithManyContainersNamesTheFirstAndCountsTheRest() {
        Map<ContainerKey, List<Share>> held = new LinkedHashMap<>();
        for (int i = 0; i < RebuiltHolds.NAMED + 5; i++) {
            held.put(new ContainerKey("team", "p" + i, "main"), List.of(new Share(0, "GPU-0", 10, 64)));
        }

        String message = RebuiltHolds.message(held);

        assertThat(message)
                .contains("show 25 containers", "team/p19/main", "; and 5 more")
                .doesNotContain("p20/");
    }
}
