package io.elasticgpu.localcluster.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoUsageTest {

    private static Pod pod(String name, String node, PodGrant grant) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("demo")
                .withName(name)
                .addToAnnotations(Annotations.ALLOCATION, grant.toJson())
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .build();
    }

    @Test
    void eachGrantedContainerUsesTheSamePartOfItsShareOnItsCardsAndOtherNodesPodsAreLeftOut() {
        Pod train = pod(
                "train",
                "gpu-node-00",
                new PodGrant(
                        "gpu-node-00",
                        Map.of(
                                "main",
                                List.of(new Share(0, "GPU-0", 1000, 81_920), new Share(1, "GPU-1", 1000, 81_920)))));
        Pod elsewhere = pod(
                "elsewhere",
                "gpu-node-01",
                new PodGrant("gpu-node-01", Map.of("main", List.of(new Share(0, "GPU-0", 300, 4096)))));

        NodeUsage usage = DemoUsage.of("gpu-node-00", List.of(train, elsewhere), "2026-12-07T12:00:00Z");

        double part = DemoUsage.part("train");
        assertThat(part).isBetween(0.5, 0.99);
        assertThat(usage.measured()).isEqualTo("2026-12-07T12:00:00Z");
        assertThat(usage.unattributed()).isEmpty();
        assertThat(usage.containers())
                .extracting(
                        NodeUsage.ContainerUsage::card,
                        NodeUsage.ContainerUsage::memoryMib,
                        NodeUsage.ContainerUsage::smPercent)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(0, Math.round(81_920 * part), (int) Math.round(100 * part)),
                        org.assertj.core.groups.Tuple.tuple(
                                1, Math.round(81_920 * part), (int) Math.round(100 * part)));
        assertThat(NodeUsage.fromJson(usage.toJson())).isEqualTo(usage);
    }
}
