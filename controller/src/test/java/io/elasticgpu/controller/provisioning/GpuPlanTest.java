package io.elasticgpu.controller.provisioning;

import static io.elasticgpu.controller.provisioning.TestPods.slicePod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.ElasticGPUStatus.Phase;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class GpuPlanTest {

    private static final Map<String, DesiredGpu> DESIRED = Desired.of(List.of(
            slicePod("a", "aaaaaaaa-1", "gpu-a8", 0, 300, 4096),
            slicePod("b", "bbbbbbbb-1", "gpu-a8", 1, 300, 4096),
            slicePod("c", "cccccccc-1", "gpu-a8", 2, 300, 4096)));

    @Test
    void nothingToDoWhenWhatExistsIsWhatIsWanted() {
        assertThat(GpuPlan.between(DESIRED, DESIRED).isEmpty()).isTrue();
    }

    @Test
    void repairsDriftBothWaysCreatingTheMissingFixingTheChangedAndDeletingOrphans() {
        Map<String, DesiredGpu> actual = new TreeMap<>(DESIRED);
        actual.remove("gpu-a8-0-aaaaaaaa-main"); // deleted by hand
        actual.put(
                "gpu-a8-1-bbbbbbbb-main", DESIRED.get("gpu-a8-1-bbbbbbbb-main").withPhase(Phase.Available)); // changed
        DesiredGpu orphan = Desired.of(List.of(slicePod("gone", "dddddddd-1", "gpu-a8", 3, 300, 4096)))
                .values()
                .iterator()
                .next();
        actual.put(orphan.name(), orphan); // its pod is gone

        GpuPlan plan = GpuPlan.between(DESIRED, actual);

        assertThat(plan.create()).extracting(DesiredGpu::name).containsExactly("gpu-a8-0-aaaaaaaa-main");
        assertThat(plan.update()).extracting(DesiredGpu::name).containsExactly("gpu-a8-1-bbbbbbbb-main");
        assertThat(plan.delete()).containsExactly("gpu-a8-3-dddddddd-main");
    }
}
