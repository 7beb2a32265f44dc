package io.elasticgpu.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.GpuAsk.Role;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodAsksTest {

    private static Container c(String name, String... limits) {
        Map<String, Quantity> q = new LinkedHashMap<>();
        for (int i = 0; i < limits.length; i += 2) {
            q.put(limits[i], new Quantity(limits[i + 1]));
        }
        return new ContainerBuilder()
                .withName(name)
                .withNewResources()
                .withLimits(q)
                .endResources()
                .build();
    }

    private static List<GpuAsk> asks(Container... containers) {
        Pod pod = new PodBuilder()
                .withNewSpec()
                .withContainers(containers)
                .endSpec()
                .build();
        return PodAsks.of(pod, PodAsks.Units.DEFAULT);
    }

    /** Found by ExtenderFuzzTest: a nameless container asking GPUs made the extender answer 500. */
    @Test
    void aContainerWithoutANameAskingGpusIsRefusedSayingSo() {
        assertThatThrownBy(() -> asks(c(null, "elasticgpu.io/gpu-memory", "2000")))
                .isInstanceOf(InvalidAskException.class)
                .hasMessage(
                        "a container without a name asks GPUs by the names of elasticgpu.io; every container needs a "
                                + "name");
        assertThat(asks(c(null, "cpu", "1")))
                .as("asking no GPU, it is none of our business")
                .isEmpty();
    }

    @Test
    void readsEveryFamilyOfNames() {
        assertThat(asks(c("a", "elasticgpu.io/gpu", "2")))
                .containsExactly(GpuAsk.whole("a", Role.APP, 2, Family.ELASTIC_GPU));
        // 8192 MiB and 30 % on each of 2 cards
        assertThat(asks(c(
                        "a",
                        "elasticgpu.io/gpu-memory",
                        "8192",
                        "elasticgpu.io/gpu-core",
                        "30",
                        "elasticgpu.io/gpu-count",
                        "2")))
                .containsExactly(GpuAsk.slice("a", Role.APP, 2, 300, 8192, Family.ELASTIC_GPU));
        assertThat(asks(c("a", "nvidia.com/gpu", "1"))).containsExactly(GpuAsk.whole("a", Role.APP, 1, Family.NVIDIA));
        // aliyun.com/gpu-mem counts GiB: 4 GiB = 4096 MiB
        assertThat(asks(c("a", "aliyun.com/gpu-mem", "4")))
                .containsExactly(GpuAsk.slice("a", Role.APP, 1, 0, 4096, Family.ALIYUN));
        assertThat(asks(c("a", "volcano.sh/gpu-memory", "1024")))
                .containsExactly(GpuAsk.slice("a", Role.APP, 1, 0, 1024, Family.VOLCANO));
        assertThat(asks(c("a", "volcano.sh/gpu-number", "2")))
                .containsExactly(GpuAsk.whole("a", Role.APP, 2, Family.VOLCANO));
        assertThat(asks(c("a", "elasticgpu.io/gpu-core", "100")))
                .containsExactly(GpuAsk.whole("a", Role.APP, 1, Family.ELASTIC_GPU));
        assertThat(asks(c("a", "cpu", "2"))).isEmpty();
    }

    @Test
    void initContainersAndSidecarsComeFirstWithTheirRoles() {
        Container sidecar = new ContainerBuilder(c("side", "elasticgpu.io/gpu-memory", "100"))
                .withRestartPolicy("Always")
                .build();
        Pod pod = new PodBuilder()
                .withNewSpec()
                .withInitContainers(c("init", "elasticgpu.io/gpu", "1"), sidecar)
                .withContainers(c("main", "elasticgpu.io/gpu-memory", "500"))
                .endSpec()
                .build();
        assertThat(PodAsks.of(pod, PodAsks.Units.DEFAULT))
                .extracting(GpuAsk::container, GpuAsk::role)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("init", Role.INIT),
                        org.assertj.core.groups.Tuple.tuple("side", Role.SIDECAR),
                        org.assertj.core.groups.Tuple.tuple("main", Role.APP));
    }

    @Test
    void memoryIsCountedInTheConfiguredBlock() {
        Pod pod = new PodBuilder()
                .withNewSpec()
                .withContainers(c("a", "elasticgpu.io/gpu-memory", "8"))
                .endSpec()
                .build();
        var units = new PodAsks.Units(
                256,
                1024,
                ResourceNames.GPU,
                ResourceNames.GPU_MEMORY,
                ResourceNames.GPU_CORE,
                ResourceNames.GPU_COUNT);
        assertThat(PodAsks.of(pod, units).getFirst().memoryMib()).isEqualTo(2048);
    }

    @Test
    void wholeCardsAndSlicesTogetherAreRefused() {
        assertThatThrownBy(() -> asks(c("train", "elasticgpu.io/gpu", "1", "elasticgpu.io/gpu-memory", "8192")))
                .isInstanceOf(InvalidAskException.class)
                .hasMessage("container train asks whole cards (elasticgpu.io/gpu: 1) and a slice "
                        + "(elasticgpu.io/gpu-memory: 8192);"
                        + " ask for one or the other");
        assertThatThrownBy(() -> asks(c("v", "volcano.sh/gpu-number", "1", "volcano.sh/gpu-memory", "10")))
                .hasMessage(
                        "container v asks whole cards (volcano.sh/gpu-number: 1) and a slice (volcano.sh/gpu-memory: "
                                + "10);"
                                + " ask for one or the other");
    }

    @Test
    void mixedFamiliesAreRefused() {
        assertThatThrownBy(() -> asks(c("a", "nvidia.com/gpu", "1", "aliyun.com/gpu-mem", "2")))
                .hasMessage("container a asks GPUs by the names of nvidia.com and aliyun.com; use one family of names "
                        + "per container");
    }

    @Test
    void aSliceAboveAWholeCardSaysToAskWholeCards() {
        assertThatThrownBy(() -> asks(c("a", "elasticgpu.io/gpu-core", "150")))
                .hasMessage(
                        "container a asks elasticgpu.io/gpu-core: 150; a slice is at most 100 (percent of one card);"
                                + " ask for elasticgpu.io/gpu: 2 for whole cards");
    }

    @Test
    void aCountWithoutASliceIsRefused() {
        assertThatThrownBy(() -> asks(c("a", "elasticgpu.io/gpu-count", "2")))
                .hasMessage("container a asks elasticgpu.io/gpu-count: 2 without elasticgpu.io/gpu-memory or "
                        + "elasticgpu.io/gpu-core;"
                        + " add the slice each card gives");
    }

    @Test
    void fractionalQuantitiesAreRefused() {
        assertThatThrownBy(() -> asks(c("a", "elasticgpu.io/gpu", "500m")))
                .hasMessage("container a: elasticgpu.io/gpu must be a whole number >= 0, was 500m");
    }
}
