package io.elasticgpu.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** A HAMi ask is our own ask of the same shares: {@code nvidia.com/gpu} plays {@code elasticgpu.io/gpu-count}. */
class HamiNamesProperties {

    @Property
    void aHamiShareIsOurCountTimesTheSlice(
            @ForAll @IntRange(min = 1, max = 16) int cards,
            @ForAll @IntRange(min = 1, max = 200_000) int memoryMib,
            @ForAll @IntRange(min = 0, max = 100) int cores) {
        GpuAsk hamiAsk = HamiNamesTest.asks(
                        "nvidia.com/gpu",
                        "" + cards,
                        "nvidia.com/gpumem",
                        "" + memoryMib,
                        "nvidia.com/gpucores",
                        "" + cores)
                .getFirst();
        List<String> ours = cores == 0
                ? List.of("elasticgpu.io/gpu-count", "" + cards, "elasticgpu.io/gpu-memory", "" + memoryMib)
                : List.of(
                        "elasticgpu.io/gpu-count",
                        "" + cards,
                        "elasticgpu.io/gpu-memory",
                        "" + memoryMib,
                        "elasticgpu.io/gpu-core",
                        "" + cores);
        GpuAsk elasticAsk = HamiNamesTest.asks(ours.toArray(String[]::new)).getFirst();
        assertThat(hamiAsk).usingRecursiveComparison().ignoringFields("family").isEqualTo(elasticAsk);
    }
}
