package io.elasticgpu.simulator.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.LinkKind;
import org.junit.jupiter.api.Test;

class SyntheticTraceTest {

    @Test
    void isTheSameForTheSameSeed() {
        assertThat(SyntheticTrace.generate(7)).isEqualTo(SyntheticTrace.generate(7));
        assertThat(SyntheticTrace.generate(7).pods())
                .isNotEqualTo(SyntheticTrace.generate(8).pods());
    }

    @Test
    void mixesCardKindsLinksAndPodShapes() {
        Trace t = SyntheticTrace.generate(SyntheticTrace.DEFAULT_SEED);
        assertThat(t.nodes()).hasSize(200);
        assertThat(t.capacityMilli()).isEqualTo(1_000_000);
        assertThat(t.nodes().stream().map(n -> n.model()).distinct())
                .containsExactlyInAnyOrder("A100", "V100M32", "T4", "A10");
        assertThat(t.nodes().getFirst().topology().between(0, 7).kind()).isEqualTo(LinkKind.NVLINK);
        assertThat(t.pods()).hasSize(6000);
        assertThat(t.pods().stream().map(p -> p.ask().tag()).distinct())
                .contains("cpu", "share", "1-gpu", "2-gpu", "4-gpu", "8-gpu");
    }
}
