package io.elasticgpu.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class PoliciesTest {

    private final PolicyContext noWorkload = PolicyContext.withoutWorkload(RandomGenerator.of("L64X128MixRandom"));

    @Test
    void everyNameBuildsThePolicyOfThatName() {
        var workload = TypicalWorkload.of(
                java.util.List.of(new TypicalWorkload.Typical(io.elasticgpu.core.model.Ask.cpuOnly(1, 1), 1.0)));
        PolicyContext context = PolicyContext.of(RandomGenerator.of("L64X128MixRandom"), workload);
        for (String name : Policies.NAMES) {
            assertThat(Policies.create(name, context).name()).isEqualTo(name);
        }
    }

    @Test
    void unknownNamesListTheKnownOnes() {
        assertThatThrownBy(() -> Policies.create("tetris", noWorkload))
                .hasMessage("unknown policy \"tetris\"; choose one of: elastic, binpack, spread, random, dot-product,"
                        + " gpu-clustering, gpu-packing, best-fit, fgd, elastic-lookahead");
    }

    @Test
    void fragmentationPoliciesNeedAWorkload() {
        assertThatThrownBy(() -> Policies.create("elastic", noWorkload))
                .hasMessage("policy elastic needs the expected workload; estimate it from a pod list first");
        assertThat(Policies.create("binpack", noWorkload).name()).isEqualTo("binpack");
    }
}
