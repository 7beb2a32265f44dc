package io.elasticgpu.core.policy;

import static io.elasticgpu.core.Fixtures.node;
import static io.elasticgpu.core.Fixtures.withUsed;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import org.junit.jupiter.api.Test;

class ProductionPoliciesTest {

    @Test
    void binpackPrefersTheFullerNodeAndTheTighterCard() {
        var half = withUsed(node("a", 8000, 8000, 2, "T4"), 500, 0);
        var empty = withUsed(node("b", 8000, 8000, 2, "T4"), 0, 0);
        Ask ask = Ask.computeSlice(0, 0, 300);
        // a: (500 + 300) / 2000 = 40 %; b: 300 / 2000 = 15 %
        assertThat(new BinpackPolicy().choose(ask, half).score()).isEqualTo(40);
        assertThat(new BinpackPolicy().choose(ask, empty).score()).isEqualTo(15);
        assertThat(new BinpackPolicy().choose(ask, half).cards()).containsExactly(0);
    }

    @Test
    void spreadPrefersTheEmptierNodeAndTheRoomierCard() {
        var half = withUsed(node("a", 8000, 8000, 2, "T4"), 500, 0);
        Ask ask = Ask.computeSlice(0, 0, 300);
        // a after: 800 of 2000 used = 40 %, so 60 free
        assertThat(new SpreadPolicy().choose(ask, half).score()).isEqualTo(60);
        assertThat(new SpreadPolicy().choose(ask, half).cards()).containsExactly(1);
    }

    @Test
    void cpuOnlyPodsPackByCpu() {
        var s = io.elasticgpu.core.snapshot.NodeState.empty(node("a", 8000, 8000, 2, "T4"));
        // 2000 of 8000 = 25 %
        assertThat(new BinpackPolicy().choose(Ask.cpuOnly(2000, 0), s).score()).isEqualTo(25);
        assertThat(new SpreadPolicy().choose(Ask.cpuOnly(2000, 0), s).score()).isEqualTo(75);
    }
}
