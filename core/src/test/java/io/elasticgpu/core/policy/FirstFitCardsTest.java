package io.elasticgpu.core.policy;

import static io.elasticgpu.core.Fixtures.node;
import static io.elasticgpu.core.Fixtures.withUsed;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Request;
import io.elasticgpu.core.snapshot.NodeState;

import java.util.List;

import org.junit.jupiter.api.Test;

class FirstFitCardsTest {

    /** Pods of 400 milli expected: 100 milli left on a card is lost to them. */
    private final Policy fgd = FgdPolicy.fgd(TypicalWorkload.of(List.of(
            new TypicalWorkload.Typical(Request.computeSlice(0, 0, 400), 1.0))));

    @Test
    void aSliceTakesTheFirstCardThatFitsScoredForThatCardNotThePolicysBest() {
        NodeState s = withUsed(node("n", 8000, 8000, 3, "T4"), 600, 0, 0); // free: 400, 1000, 1000
        Request slice = Request.computeSlice(0, 0, 300);

        Choice best = fgd.choose(slice, s);
        Choice first = new FirstFitCards(fgd).choose(slice, s);

        assertThat(best.cards()).as("FGD keeps card 0's 400 for a typical pod").containsExactly(1);
        assertThat(first.cards()).as("the allocator takes the first card that fits").containsExactly(0);
        assertThat(first.score()).as("100 milli left on card 0 that no typical pod can use").isLessThan(best.score());
        assertThat(first).isEqualTo(fgd.scoreTaking(slice, s, new int[] {0}));
    }

    @Test
    void wholeCardsAreTheFirstIdleOnesAndPodsWithoutCardsAreThePolicys() {
        NodeState s = withUsed(node("n", 8000, 8000, 4, "T4"), 300, 0, 1000, 0);
        assertThat(new FirstFitCards(new SpreadPolicy()).choose(Request.wholeCards(0, 0, 2), s).cards()).containsExactly(1, 3);
        Request cpuOnly = Request.cpuOnly(2000, 0);
        assertThat(new FirstFitCards(new BinpackPolicy()).choose(cpuOnly, s)).isEqualTo(new BinpackPolicy().choose(cpuOnly, s));
    }
}
