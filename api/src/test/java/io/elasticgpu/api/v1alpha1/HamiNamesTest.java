package io.elasticgpu.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.GpuAsk.Role;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** HAMi's names read through {@link PodAsks}, as every component reads them. */
class HamiNamesTest {

    static List<GpuAsk> asks(String... limits) {
        Map<String, Quantity> q = new LinkedHashMap<>();
        for (int i = 0; i < limits.length; i += 2) {
            q.put(limits[i], new Quantity(limits[i + 1]));
        }
        Pod pod = new PodBuilder()
                .withNewSpec()
                .withContainers(new ContainerBuilder()
                        .withName("a")
                        .withNewResources()
                        .withLimits(q)
                        .endResources()
                        .build())
                .endSpec()
                .build();
        return PodAsks.of(pod, PodAsks.Units.DEFAULT);
    }

    static Stream<Arguments> hamiAsks() {
        return Stream.of(
                // nvidia.com/gpu alone is whole cards, as NVIDIA's device plugin (and HAMi: memory defaults to 100 %)
                Arguments.of(
                        "cards alone",
                        new String[] {"nvidia.com/gpu", "2"},
                        GpuAsk.whole("a", Role.APP, 2, Family.NVIDIA)),
                // 3000 MiB on each of 2 cards, no compute share
                Arguments.of(
                        "memory",
                        new String[] {"nvidia.com/gpu", "2", "nvidia.com/gpumem", "3000"},
                        GpuAsk.slice("a", Role.APP, 2, 0, 3000, Family.HAMI)),
                // 30 % = 300 milli and 4096 MiB on 1 card
                Arguments.of(
                        "memory and cores",
                        new String[] {"nvidia.com/gpu", "1", "nvidia.com/gpumem", "4096", "nvidia.com/gpucores", "30"},
                        GpuAsk.slice("a", Role.APP, 1, 300, 4096, Family.HAMI)),
                // gpumem wins over gpumem-percentage, as in HAMi
                Arguments.of(
                        "memory beats percentage",
                        new String[] {
                            "nvidia.com/gpu", "1", "nvidia.com/gpumem", "1024", "nvidia.com/gpumem-percentage", "50"
                        },
                        GpuAsk.slice("a", Role.APP, 1, 0, 1024, Family.HAMI)),
                // no memory given is all of the card's memory: nothing else fits beside it, so the card alone
                Arguments.of(
                        "cores without memory",
                        new String[] {"nvidia.com/gpu", "1", "nvidia.com/gpucores", "30"},
                        GpuAsk.whole("a", Role.APP, 1, Family.HAMI)),
                Arguments.of(
                        "all of the memory",
                        new String[] {"nvidia.com/gpu", "2", "nvidia.com/gpumem-percentage", "100"},
                        GpuAsk.whole("a", Role.APP, 2, Family.HAMI)),
                // gpucores 100 asks a card of its own, whatever memory
                Arguments.of(
                        "all of the compute",
                        new String[] {"nvidia.com/gpu", "1", "nvidia.com/gpumem", "2048", "nvidia.com/gpucores", "100"},
                        GpuAsk.whole("a", Role.APP, 1, Family.HAMI)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hamiAsks")
    void readsHamisMeaning(String name, String[] limits, GpuAsk expectedAsk) {
        assertThat(asks(limits)).containsExactly(expectedAsk);
    }

    @Test
    void aShareWithoutCardsSaysToAddThem() {
        assertThatThrownBy(() -> asks("nvidia.com/gpumem", "4096"))
                .isInstanceOf(InvalidAskException.class)
                .hasMessage(
                        "container a asks nvidia.com/gpumem: 4096 without nvidia.com/gpu; add nvidia.com/gpu: 1 (the "
                                + "number"
                                + " of cards that each give this share; HAMi's webhook adds it, Elastic GPU leaves "
                                + "pods as written)");
    }

    @Test
    void coresAboveOneCardAreRefused() {
        assertThatThrownBy(() -> asks("nvidia.com/gpu", "1", "nvidia.com/gpumem", "10", "nvidia.com/gpucores", "150"))
                .hasMessage(
                        "container a asks nvidia.com/gpucores: 150; it is percent of one card and at most 100: ask for"
                                + " nvidia.com/gpucores: 100 for a card of its own; more cards with nvidia.com/gpu");
    }

    @Test
    void memoryPercentAboveOneCardIsRefused() {
        assertThatThrownBy(() -> asks("nvidia.com/gpu", "1", "nvidia.com/gpumem-percentage", "120"))
                .hasMessage(
                        "container a asks nvidia.com/gpumem-percentage: 120; it is percent of one card and at most 100:"
                                + " ask for nvidia.com/gpumem-percentage: 100 (or leave it out) for all of its memory");
    }

    @Test
    void aPercentOfMemoryIsAskedAsAPercentOfWhicheverCardIsGiven() {
        assertThat(asks("nvidia.com/gpu", "1", "nvidia.com/gpumem-percentage", "25"))
                .containsExactly(GpuAsk.slicePercent("a", Role.APP, 1, 0, 25, Family.HAMI));
        assertThat(asks("nvidia.com/gpu", "2", "nvidia.com/gpucores", "30", "nvidia.com/gpumem-percentage", "30"))
                .containsExactly(GpuAsk.slicePercent("a", Role.APP, 2, 300, 30, Family.HAMI));
    }

    @Test
    void negativeValuesAreRefused() {
        assertThatThrownBy(() -> asks("nvidia.com/gpu", "1", "nvidia.com/gpumem", "-1"))
                .hasMessage("container a: nvidia.com/gpumem must be a whole number >= 0, was -1");
    }

    @Test
    void hamisNamesWithOursAreRefused() {
        assertThatThrownBy(() ->
                        asks("nvidia.com/gpu", "1", "nvidia.com/gpumem", "1024", "elasticgpu.io/gpu-memory", "1024"))
                .hasMessage(
                        "container a asks GPUs by the names of elasticgpu.io and nvidia.com; use one family of names "
                                + "per container");
    }

    @Test
    void aQualifierAloneMakesThePodOurs() {
        Pod pod = new PodBuilder()
                .withNewSpec()
                .withContainers(new ContainerBuilder()
                        .withName("a")
                        .withNewResources()
                        .withLimits(Map.of("nvidia.com/gpucores", new Quantity("20")))
                        .endResources()
                        .build())
                .endSpec()
                .build();
        assertThat(PodAsks.asksGpu(pod, PodAsks.Units.DEFAULT)).isTrue();
    }
}
