package io.elasticgpu.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import java.util.List;
import org.junit.jupiter.api.Test;

class FragmentationTest {

    // t1: a 500-milli slice (p 0.5); t2: one whole card, 4 cores, 32 GiB (p 0.25); t3: CPU-only (p 0.25)
    private final TypicalWorkload workload = TypicalWorkload.of(List.of(
            new TypicalWorkload.Typical(Ask.computeSlice(1000, 0, 500), 0.5),
            new TypicalWorkload.Typical(Ask.wholeCards(4000, 32_768, 1), 0.25),
            new TypicalWorkload.Typical(Ask.cpuOnly(1000, 0), 0.25)));

    @Test
    void countsCardsTooSmallForEachTypicalPod() {
        // free [1000, 300], G = 1300: t1 fits, small cards 300 -> 0.5*300; t2 fits, small 300 -> 0.25*300;
        // t3 needs no GPU -> 0.25*1300; F = 150 + 75 + 325 = 550
        assertThat(Fragmentation.gpuAndCpu(workload).of(8000, 16_384, new int[] {1000, 300}, "T4"))
                .isEqualTo(550);
    }

    @Test
    void countsTheWholeNodeForPodsThatLackCpu() {
        // 2000 milli-CPU: t2 (4000) lacks CPU -> 0.25*1300 = 325 instead of 75; F = 150 + 325 + 325 = 800
        assertThat(Fragmentation.gpuAndCpu(workload).of(2000, 16_384, new int[] {1000, 300}, "T4"))
                .isEqualTo(800);
    }

    @Test
    void onlyTheAllResourcesFlavourSeesHostMemory() {
        // 16 GiB free: t2 needs 32 GiB. The paper's measure ignores it (550); ours counts t2 as lacking: 800
        assertThat(Fragmentation.gpuAndCpu(workload).of(8000, 16_384, new int[] {1000, 300}, "T4"))
                .isEqualTo(550);
        assertThat(Fragmentation.allResources(workload).of(8000, 16_384, new int[] {1000, 300}, "T4"))
                .isEqualTo(800);
        assertThat(Fragmentation.allResources(workload).of(8000, 65_536, new int[] {1000, 300}, "T4"))
                .isEqualTo(550);
    }

    @Test
    void podsThatRejectTheModelCountTheWholeNode() {
        TypicalWorkload onlyA100 = TypicalWorkload.of(
                List.of(new TypicalWorkload.Typical(Ask.computeSlice(0, 0, 500).withModels(List.of("A100")), 1.0)));
        assertThat(Fragmentation.gpuAndCpu(onlyA100).of(8000, 0, new int[] {1000, 300}, "T4"))
                .isEqualTo(1300);
        assertThat(Fragmentation.gpuAndCpu(onlyA100).of(8000, 0, new int[] {1000, 300}, "A100"))
                .isEqualTo(300);
    }

    @Test
    void fgdTakesTheCardThatFragmentsLeast() {
        TypicalWorkload slices =
                TypicalWorkload.of(List.of(new TypicalWorkload.Typical(Ask.computeSlice(0, 0, 400), 1.0)));
        FgdPolicy fgd = FgdPolicy.fgd(slices);
        var s = io.elasticgpu.core.Fixtures.withUsed(
                io.elasticgpu.core.Fixtures.node("n", 1000, 1000, 2, "T4"), 0, 500);
        // free [1000, 500]: 400 on card 0 leaves [600, 500], F 0 -> 0 (score 50);
        // on card 1 leaves [1000, 100], F 0 -> 100 (score floor(100 sigmoid(-0.1)) = 47)
        Choice choice = fgd.choose(Ask.computeSlice(0, 0, 400), s);
        assertThat(choice.cards()).containsExactly(0);
        assertThat(choice.score()).isEqualTo(50);
    }
}
