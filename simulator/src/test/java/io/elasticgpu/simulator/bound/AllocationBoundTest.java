package io.elasticgpu.simulator.bound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.simulator.trace.TracePod;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class AllocationBoundTest {

    static Node node(String name, long cpuMilli, long memoryMib, int cards, String model) {
        List<Card> list = IntStream.range(0, cards)
                .mapToObj(i -> Card.of(i, name + "/" + i, model, 16_384))
                .toList();
        return Node.of(name, cpuMilli, memoryMib, 110, list);
    }

    @Test
    void slicesThatPairBadlyLeaveACardPartlyEmpty() {
        // Two cards; three 600s and two 500s. A card holds one 600 (no 400 exists) or two 500s: 600 + 500 + 500.
        List<Node> nodes = List.of(node("n", 10_000, 65_536, 2, "T4"));
        Ask sixAsk = Ask.computeSlice(1_000, 1_024, 600);
        Ask fiveAsk = Ask.computeSlice(1_000, 1_024, 500);
        assertThat(AllocationBound.upperMilli(nodes, List.of(sixAsk, sixAsk, sixAsk, fiveAsk, fiveAsk)))
                .isCloseTo(1_600, within(1e-6));
    }

    @Test
    void cpuCapsWholeCardPodsFractionally() {
        // Two idle cards but 4 cores; each pod asks 3 cores and a card: the LP may run 4/3 of them, 1333.33 milli.
        List<Node> nodes = List.of(node("n", 4_000, 65_536, 2, "T4"));
        Ask wholeAsk = Ask.wholeCards(3_000, 1_024, 1);
        assertThat(AllocationBound.upperMilli(nodes, List.of(wholeAsk, wholeAsk)))
                .isCloseTo(4_000.0 / 3, within(1e-6));
    }

    @Test
    void podsThatFitNoNodeKindAddNothing() {
        List<Node> nodes = List.of(node("a", 64_000, 65_536, 4, "T4"), node("b", 64_000, 65_536, 4, "T4"));
        Ask eightAsk = Ask.wholeCards(1_000, 1_024, 8);
        Ask v100Ask = Ask.computeSlice(1_000, 1_024, 500).withModels(List.of("V100M16"));
        Ask cpuAsk = Ask.cpuOnly(1_000, 1_024);
        assertThat(AllocationBound.upperMilli(nodes, List.of(eightAsk, v100Ask, cpuAsk)))
                .isZero();
        // at most one pod asking more than half of a node's cards per node: two 3-card pods on two 4-card nodes
        Ask threeAsk = Ask.wholeCards(1_000, 1_024, 3);
        assertThat(AllocationBound.upperMilli(nodes, List.of(threeAsk, threeAsk, threeAsk)))
                .isCloseTo(6_000, within(1e-6));
    }

    @Test
    void theCutIsTheLastEventAtArrivalLevel100() {
        // capacity 1000; levels of the events: 50, 100, 100 (100.4 rounds to 100), 110
        List<Ask> asks = List.of(
                Ask.computeSlice(0, 0, 500),
                Ask.computeSlice(0, 0, 500),
                Ask.computeSlice(0, 0, 4),
                Ask.computeSlice(0, 0, 100));
        assertThat(Ceiling.cut(asks, 1_000, 100)).isEqualTo(3);
        assertThatThrownBy(() -> Ceiling.cut(asks.subList(0, 1), 1_000, 100))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pods arrive until 50 % of GPU capacity")
                .hasMessageContaining("--inflation");
    }

    @Test
    void theCeilingOfAnOrderReportsBothInPercent() {
        List<Node> nodes = List.of(node("n", 10_000, 65_536, 2, "T4"));
        List<TracePod> order = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            order.add(new TracePod("six-" + i, Ask.computeSlice(1_000, 1_024, 600)));
        }
        order.add(new TracePod("five-0", Ask.computeSlice(1_000, 1_024, 500)));
        order.add(new TracePod("five-1", Ask.computeSlice(1_000, 1_024, 500)));
        Ceiling ceiling = Ceiling.of(nodes, order);
        // arrived 600, 1200, 1800 (level 90), 2300 (115): the cut keeps the first three... none at level 100
        assertThat(ceiling.cutPods()).isEqualTo(3);
        assertThat(ceiling.boundPct()).isCloseTo(60, within(1e-6));
        assertThat(ceiling.offlinePct()).isCloseTo(60, within(1e-9));
    }

    @Test
    void nodesWithUnlikeCardsAreRefusedWithTheReason() {
        Node mixed = Node.of(
                "m", 8_000, 8_192, 10, List.of(Card.of(0, "m/0", "T4", 15_360), Card.of(1, "m/1", "A10", 24_576)));
        assertThatThrownBy(() -> AllocationBound.upperMilli(List.of(mixed), List.of(Ask.wholeCards(0, 0, 1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("node m has T4 (1000 milli) and A10 (1000 milli)");
    }
}
