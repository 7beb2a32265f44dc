package io.elasticgpu.simulator.bound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Node;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoundingPackerTest {

    private static final List<Node> TWO_CARDS = List.of(AllocationBoundTest.node("n", 64_000, 262_144, 2, "T4"));

    private static List<Ask> slices(int... milli) {
        return Arrays.stream(milli)
                .mapToObj(m -> Ask.computeSlice(1_000, 1_024, m))
                .toList();
    }

    @Test
    void roundingTheProgramPairsTheSlicesThatBestFitDecreasingSplits() {
        // Two cards. Best fit decreasing puts 810 and 650 first, one per card; no 470 fits beside either, and 320
        // joins 650: 1780. The program's configurations pair 470 + 470 and 650 + 320 and leave 810 out: 1910, the
        // bound, so the optimum.
        List<Ask> asks = slices(810, 650, 470, 470, 320);
        assertThat(OfflinePacker.pack(TWO_CARDS, asks).usedMilli()).isEqualTo(1_780);
        AllocationBound.Solution solution = AllocationBound.solve(TWO_CARDS, asks);
        assertThat(solution.boundMilli()).isCloseTo(1_910, within(1e-6));

        Packing rounded = RoundingPacker.pack(TWO_CARDS, asks, solution);
        assertThat(PackingCheck.problems(TWO_CARDS, asks, rounded)).isEmpty();
        assertThat(rounded.usedMilli()).isEqualTo(1_910);
        assertThat(rounded.placed()).extracting(Packing.Placed::pod).containsExactlyInAnyOrder(1, 2, 3, 4);

        Packing roundedFew =
                RoundingPacker.pack(TWO_CARDS, asks, AllocationBound.solveForRounding(TWO_CARDS, asks, solution));
        assertThat(PackingCheck.problems(TWO_CARDS, asks, roundedFew)).isEmpty();
        assertThat(roundedFew.usedMilli()).isEqualTo(1_910);
    }

    @Test
    void theFewPerNodeRowsKeepPodsAskingOverHalfANodeOnePerNode() {
        // Two 2-card nodes of 16 cores, four whole-card pods of 9 cores: the bound pools the 32 cores and counts
        // 32 / 9 of them; one per node fits, and the few-per-node rows say so: 2000.
        List<Node> nodes = List.of(
                AllocationBoundTest.node("a", 16_000, 262_144, 2, "T4"),
                AllocationBoundTest.node("b", 16_000, 262_144, 2, "T4"));
        Ask bigAsk = Ask.wholeCards(9_000, 1_024, 1);
        List<Ask> asks = List.of(bigAsk, bigAsk, bigAsk, bigAsk);
        assertThat(AllocationBound.solve(nodes, asks).boundMilli()).isCloseTo(32_000.0 / 9, within(1e-6));
        AllocationBound.Solution few =
                AllocationBound.solveForRounding(nodes, asks, AllocationBound.solve(nodes, asks));
        assertThat(few.boundMilli()).isCloseTo(2_000, within(1e-6));
        Packing rounded = RoundingPacker.pack(nodes, asks, few);
        assertThat(PackingCheck.problems(nodes, asks, rounded)).isEmpty();
        assertThat(rounded.usedMilli()).isEqualTo(2_000);
    }

    @Test
    void theRoundingKeepsToTheNodesCpu() {
        // One card, 4 cores: 450 + 450 + 100 fit the card, but only 4 cores' worth of pods fit the node. The two
        // 450s (2 cores each) are worth more per core than the 100 (1 core): 900, the bound.
        List<Node> node = List.of(AllocationBoundTest.node("n", 4_000, 65_536, 1, "T4"));
        List<Ask> asks = List.of(
                Ask.computeSlice(2_000, 1_024, 450),
                Ask.computeSlice(2_000, 1_024, 450),
                Ask.computeSlice(1_000, 1_024, 100));
        AllocationBound.Solution solution = AllocationBound.solve(node, asks);
        Packing rounded = RoundingPacker.pack(node, asks, solution);
        assertThat(PackingCheck.problems(node, asks, rounded)).isEmpty();
        assertThat(solution.boundMilli()).isCloseTo(900, within(1e-6));
        assertThat(rounded.usedMilli()).isEqualTo(900);
    }
}
