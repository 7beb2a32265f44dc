package io.elasticgpu.node.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConvertedPodsTest {

    private final List<String> converted = new ArrayList<>();
    private final ConvertedPods pods = new ConvertedPods(p -> {
        converted.add(p.getMetadata().getName() + "@" + p.getMetadata().getResourceVersion());
        return Optional.of(new NodePod(
                p.getMetadata().getUid(),
                "default",
                p.getMetadata().getName(),
                Long.parseLong(
                        p.getMetadata().getResourceVersion() == null
                                ? "0"
                                : p.getMetadata().getResourceVersion()),
                Optional.empty(),
                false,
                List.of(new NodePod.Container("main", Map.of("r", 1L), Family.ELASTIC_GPU, false))));
    });

    private static Pod pod(String name, String resourceVersion) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withUid("uid-" + name)
                .withResourceVersion(resourceVersion)
                .endMetadata()
                .build();
    }

    @Test
    void aPodVersionIsConvertedOnceAndAgainWhenItsResourceVersionChanges() {
        List<NodePod> first = pods.of(List.of(pod("a", "1"), pod("b", "1")));
        List<NodePod> again = pods.of(List.of(pod("a", "1"), pod("b", "1")));
        assertThat(again.get(0)).isSameAs(first.get(0));
        assertThat(converted).containsExactly("a@1", "b@1");

        List<NodePod> changed = pods.of(List.of(pod("a", "1"), pod("b", "7")));

        assertThat(converted).containsExactly("a@1", "b@1", "b@7");
        assertThat(changed.get(1).assumeTime()).as("what the new version says").isEqualTo(7);
    }

    @Test
    void deletedPodsAreForgottenAndAPodWithoutAResourceVersionIsConvertedEveryTime() {
        pods.of(List.of(pod("a", "1"), pod("b", "1")));
        pods.of(List.of(pod("b", "1")));
        assertThat(pods.remembered()).isEqualTo(1);

        pods.of(List.of(pod("c", null)));
        pods.of(List.of(pod("c", null)));
        assertThat(converted).containsExactly("a@1", "b@1", "c@null", "c@null");
    }
}
