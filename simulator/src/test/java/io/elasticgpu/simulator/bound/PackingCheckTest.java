package io.elasticgpu.simulator.bound;

import static io.elasticgpu.simulator.bound.AllocationBoundTest.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import java.util.List;
import org.junit.jupiter.api.Test;

class PackingCheckTest {

    private final List<Node> nodes = List.of(node("n", 4_000, 8_192, 2, "T4"));
    private final Ask sixAsk = Ask.computeSlice(1_000, 1_024, 600);

    private static Packing.Placed on(int pod, Ask ask, int card) {
        return new Packing.Placed(pod, new Grant("n", ask, List.of(new CardShare(card, ask.milliPerCard(), 0))));
    }

    @Test
    void aFeasiblePackingPasses() {
        Packing packing = new Packing(List.of(on(0, sixAsk, 0), on(1, sixAsk, 1)));
        assertThat(PackingCheck.problems(nodes, List.of(sixAsk, sixAsk), packing))
                .isEmpty();
        assertThat(packing.usedMilli()).isEqualTo(1_200);
    }

    @Test
    void anOverFullCardIsRejected() {
        Packing packing = new Packing(List.of(on(0, sixAsk, 0), on(1, sixAsk, 0)));
        assertThat(PackingCheck.problems(nodes, List.of(sixAsk, sixAsk), packing))
                .containsExactly("card 0 of n holds 1200 milli and 0 MiB; it has 1000 and 16384");
        assertThatThrownBy(() -> PackingCheck.requireFeasible(nodes, List.of(sixAsk, sixAsk), packing))
                .hasMessageContaining("infeasible packing (1 problems)");
    }

    @Test
    void anOverFullNodeAPodTwiceAndAWrongModelAreRejected() {
        Ask bigAsk = Ask.computeSlice(3_000, 1_024, 100);
        Ask v100Ask = Ask.computeSlice(0, 0, 100).withModels(List.of("V100M16"));
        List<Ask> asks = List.of(bigAsk, bigAsk, v100Ask);
        Packing packing = new Packing(List.of(on(0, bigAsk, 0), on(1, bigAsk, 1), on(1, bigAsk, 1), on(2, v100Ask, 0)));
        assertThat(PackingCheck.problems(nodes, asks, packing))
                .contains("pod 1 is placed twice")
                .contains("node n holds 9000 milli-CPU, 3072 MiB, 4 pods; it has 4000, 8192, 110")
                .contains("pod 2 is on card 0 of n, T4, which it cannot use");
    }

    @Test
    void aWholeCardSharedWithASliceIsRejected() {
        Ask wholeAsk = Ask.wholeCards(0, 0, 1);
        Ask tinyAsk = Ask.computeSlice(0, 0, 0 + 1);
        Packing packing = new Packing(List.of(
                new Packing.Placed(0, new Grant("n", wholeAsk, List.of(new CardShare(0, 1_000, 16_384)))),
                on(1, tinyAsk, 0)));
        assertThat(PackingCheck.problems(nodes, List.of(wholeAsk, tinyAsk), packing))
                .anyMatch(p -> p.startsWith("card 0 of n holds 1001 milli"))
                .contains("card 0 of n is a pod's whole card and holds 2 pods");
    }
}
