package io.elasticgpu.localcluster.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.Test;

class FakeGpuNodesTest {

    @Test
    void aFakeNodeAdvertisesEveryResourceNameAndItsInventory() {
        Node node = FakeGpuNodes.toNode(
                GpuNodeSpec.of("n1", 8, "NVIDIA A100-SXM4-80GB", 81_920).withNvlinkIslands(4, 12));
        assertThat(node.getStatus().getAllocatable())
                .containsEntry("elasticgpu.io/gpu", new Quantity("8"))
                .containsEntry("elasticgpu.io/gpu-memory", new Quantity("655360"))
                .containsEntry("elasticgpu.io/gpu-core", new Quantity("800"))
                .containsEntry("nvidia.com/gpu", new Quantity("800"))
                .containsEntry("aliyun.com/gpu-mem", new Quantity("640"))
                .containsEntry("volcano.sh/gpu-memory", new Quantity("655360"))
                .containsEntry("volcano.sh/gpu-number", new Quantity("8"));
        assertThat(node.getMetadata().getLabels())
                .containsEntry("elasticgpu.io/gpu.product", "NVIDIA-A100-SXM4-80GB")
                .containsEntry("elasticgpu.io/gpu.count", "8")
                .containsEntry("elasticgpu.io/gpu.memory", "81920");
        NodeInventory inventory =
                NodeInventory.fromJson(node.getMetadata().getAnnotations().get(Annotations.INVENTORY));
        assertThat(inventory.cards()).hasSize(8);
        // two islands of four: 6 pairs each
        assertThat(inventory.links())
                .hasSize(12)
                .allSatisfy(l -> assertThat(l.a() / 4).isEqualTo(l.b() / 4));
    }

    @Test
    void theMixRepeatsEightFourAndTwoCardNodes() {
        assertThat(GpuNodeSpec.mixed("g", 5)).extracting(GpuNodeSpec::cards).containsExactly(8, 4, 2, 8, 4);
    }
}
