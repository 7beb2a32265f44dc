package io.elasticgpu.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.core.model.Ask;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TypicalWorkloadTest {

    private final List<Ask> asks = new ArrayList<>();

    {
        for (int mem = 1; mem <= 5; mem++) {
            asks.add(Ask.computeSlice(1000, mem, 500)); // A x5, memory 1..5
        }
        for (int i = 0; i < 3; i++) {
            asks.add(Ask.wholeCards(1000, 7, 1)); // B x3
        }
        asks.add(Ask.cpuOnly(2000, 9)); // C
        asks.add(Ask.wholeCards(500, 9, 1)); // D
    }

    @Test
    void keepsTheMostFrequentShapesUntilTheyCoverTheShareAndRenormalises() {
        TypicalWorkload w = TypicalWorkload.estimate(asks, 80);
        // 10 pods, 80% = 8: A (5) then B (3) cover 8; p = (5/10) / (8/10) and (3/10) / (8/10), in that order of
        // floating-point operations, as the paper's artifact computes them
        assertThat(w.typicals()).extracting(t -> t.ask().tag()).containsExactly("share", "1-gpu");
        assertThat(w.typicals())
                .extracting(TypicalWorkload.Typical::probability)
                .containsExactly((5 / 10.0) / (8 / 10.0), (3 / 10.0) / (8 / 10.0));
        assertThat(w.distinctShapes()).isEqualTo(4);
        assertThat(w.coverage(asks)).isEqualTo(0.8);
    }

    @Test
    void equallyFrequentShapesGoLargerFirstAndAllKeptAreNotRenormalised() {
        TypicalWorkload w = TypicalWorkload.estimate(asks, 100);
        // C (2000 milli-CPU) and D (500) both appear once: the larger CPU goes first
        assertThat(w.typicals()).extracting(t -> t.ask().cpuMilli()).containsExactly(1000L, 1000L, 2000L, 500L);
        assertThat(w.typicals())
                .extracting(TypicalWorkload.Typical::probability)
                .containsExactly(0.5, 0.3, 0.1, 0.1);
    }

    @Test
    void eachShapeCarriesTheMedianHostMemoryOfItsGroup() {
        assertThat(TypicalWorkload.estimate(asks, 80)
                        .typicals()
                        .getFirst()
                        .ask()
                        .memoryMib())
                .isEqualTo(3);
    }

    @Test
    void rejectsNonsense() {
        assertThatThrownBy(() -> TypicalWorkload.estimate(asks, 0)).hasMessage("coveragePercent must be 1..100, was 0");
        assertThatThrownBy(() -> TypicalWorkload.estimate(List.of(), 95))
                .hasMessage("cannot estimate a workload from no pods");
    }
}
