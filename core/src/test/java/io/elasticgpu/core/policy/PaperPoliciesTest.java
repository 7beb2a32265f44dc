package io.elasticgpu.core.policy;

import static io.elasticgpu.core.Fixtures.node;
import static io.elasticgpu.core.Fixtures.withUsed;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The paper's baselines, formula by formula; each case's comment shows the arithmetic. */
class PaperPoliciesTest {

    static Stream<Arguments> dotProduct() {
        return Stream.of(
                // node c=64000 G=2000, pod rc=8000 R=1000:
                // (64000/128000)(8000/128000) + (2000/8000)(1000/8000) = 0.03125 + 0.03125 = 0.0625; 100(1 - 0.0625/2)
                // = 96.875
                Arguments.of("half-cpu two free cards", 64_000, 2, Ask.wholeCards(8000, 0, 1), 96),
                // node c=128000 G=8000, pod rc=128000 R=8000: 1 + 1 = 2; 100(1 - 2/2) = 0
                Arguments.of("pod takes the whole node", 128_000, 8, Ask.wholeCards(128_000, 0, 8), 0),
                // node c=32000 G=4000, CPU-only rc=16000: (0.25)(0.125) + 0 = 0.03125; 100(1 - 0.015625) = 98.4375
                Arguments.of("cpu-only pod", 32_000, 4, Ask.cpuOnly(16_000, 0), 98));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void dotProduct(String name, long cpu, int cards, Ask ask, long expected) {
        NodeState s = NodeState.empty(node("n", cpu, 1 << 20, cards, "G2"));
        assertThat(new DotProductPolicy().choose(ask, s).score()).isEqualTo(expected);
    }

    @Test
    void gpuClusteringKeepsKindsTogether() {
        GpuClusteringPolicy p = new GpuClusteringPolicy();
        Ask shareAsk = Ask.computeSlice(0, 0, 200);
        NodeState empty = NodeState.empty(node("n", 1000, 1000, 8, "G2"));
        // no GPU pods: base 25; fullness 25 * (8000 - 8000) / 8000 = 0
        assertThat(p.choose(shareAsk, empty).score()).isEqualTo(25);
        NodeState shares = withUsed(node("n", 1000, 1000, 8, "G2"), 800, 800);
        // only share pods: base 75; fullness 25 * (8000 - 6400) / 8000 = 5
        assertThat(p.choose(shareAsk, shares).score()).isEqualTo(80);
        // only share pods, but the pod is a whole card: base 0; fullness 5
        assertThat(p.choose(Ask.wholeCards(0, 0, 1), shares).score()).isEqualTo(5);
        NodeState mixed = shares.with(new Grant("n", Ask.wholeCards(0, 0, 1), List.of(new CardShare(5, 1000, 16_384))));
        // share and 1-gpu pods: base 50; fullness 25 * (8000 - 5400) / 8000 = 8.125 -> 8
        assertThat(p.choose(shareAsk, mixed).score()).isEqualTo(58);
        assertThat(p.choose(Ask.cpuOnly(10, 10), mixed).score()).isZero();
    }

    static Stream<Arguments> gpuPacking() {
        return Stream.of(
                // every card free, K=8: max(33 - 8, 8) = 25
                Arguments.of("empty 8-card node", new int[8], Ask.computeSlice(0, 0, 300), 25),
                // every card free, K=2: max(33 - 2, 2) = 31
                Arguments.of("empty 2-card node", new int[2], Ask.computeSlice(0, 0, 300), 31),
                // free [1000, 400, 1000, 1000], share 300 takes card 1 (400): 100 - floor(400*100/1000)/10 = 96
                Arguments.of("share onto a used card", new int[] {0, 600, 0, 0}, Ask.computeSlice(0, 0, 300), 96),
                // whole card must take a free card on a used node: max(50 - 1, 33) = 49
                Arguments.of("free card on a used node", new int[] {0, 600, 0, 0}, Ask.wholeCards(0, 0, 1), 49),
                // free [1000, 100, 1000, 1000]: 300 does not fit card 1, takes a free card: max(50 - 1, 33) = 49
                Arguments.of("used card too small", new int[] {0, 900, 0, 0}, Ask.computeSlice(0, 0, 300), 49));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void gpuPacking(String name, int[] used, Ask ask, long expected) {
        NodeState s = withUsed(node("n", 1000, 1000, used.length, "G2"), used);
        assertThat(new GpuPackingPolicy().choose(ask, s).score()).isEqualTo(expected);
    }

    @Test
    void bestFitScoresLeftoverThenNormalisesOverTheCycle() {
        BestFitPolicy p = new BestFitPolicy();
        // c=64000 G=2000, pod rc=0 R=1000: 0.5*64000/128000 + 0.5*1000/8000 = 0.3125; 100(1 - 0.3125) = 68.75
        NodeState s = NodeState.empty(node("n", 64_000, 1 << 20, 2, "G2"));
        assertThat(p.choose(Ask.wholeCards(0, 0, 1), s).score()).isEqualTo(68);
        double[] scores = {68, 50, 59, 0};
        p.normalize(scores, 3);
        // lowest 50, range 18: (68-50)*100/18 = 100, 0, (59-50)*100/18 = 50 (integer division); the 4th is untouched
        assertThat(scores).containsExactly(100, 0, 50, 0);
        double[] equal = {7, 7};
        p.normalize(equal, 2);
        assertThat(equal).containsExactly(0, 0);
    }

    @Test
    void paperCardChoiceIsBestFitForSlicesAndLowestFreeForWholeCards() {
        NodeState s = withUsed(node("n", 1000, 1000, 4, "G2"), 500, 0, 700, 0);
        Ask sliceAsk = Ask.computeSlice(0, 0, 200);
        // free [500, 1000, 300, 1000]: the tightest card that fits 200 is card 2 (300)
        assertThat(new DotProductPolicy().choose(sliceAsk, s).cards()).containsExactly(2);
        assertThat(new GpuPackingPolicy().choose(sliceAsk, s).cards()).containsExactly(2);
        assertThat(new BestFitPolicy().choose(Ask.wholeCards(0, 0, 2), s).cards())
                .containsExactly(1, 3);
    }

    @Test
    void fgdScoreIsTheFlooredSigmoidOfTheFragmentationDecrease() {
        assertThat(FgdPolicy.score(0)).isEqualTo(50);
        // 100 / (1 + e^-1) = 73.1
        assertThat(FgdPolicy.score(1000)).isEqualTo(73);
        // 100 / (1 + e^1) = 26.9
        assertThat(FgdPolicy.score(-1000)).isEqualTo(26);
    }
}
