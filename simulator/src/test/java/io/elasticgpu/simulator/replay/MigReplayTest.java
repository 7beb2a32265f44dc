package io.elasticgpu.simulator.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.MigGeometry;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.simulator.trace.SyntheticTrace;
import io.elasticgpu.simulator.trace.TracePod;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class MigReplayTest {

    private static final MigGeometry H100 =
            MigGeometry.of("NVIDIA H100 80GB HBM3").orElseThrow();

    private static Node node(String name, int cards) {
        List<Card> list = IntStream.range(0, cards)
                .mapToObj(i -> Card.of(i, name + "-gpu" + i, "T4", 16_384))
                .toList();
        return Node.of(name, 64_000, 262_144, 110, list);
    }

    private static TracePod slice(String name, int milli) {
        return new TracePod(name, Ask.computeSlice(1000, 1024, milli));
    }

    private static MigReplay.Result replay(MigReplay.Choice choice, List<Node> nodes, TracePod... pods) {
        return new MigReplay(nodes, H100, choice).run(List.of(pods));
    }

    @Test
    void sevenTenthsOfACardAreSevenInstancesAndTheEighthFindsNoRoomWhereSharesWouldHoldTen() {
        List<TracePod> pods = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            pods.add(slice("p" + i, 100));
        }
        MigReplay.Result r =
                replay(MigReplay.Choice.KEEP_LARGEST, List.of(node("n", 1)), pods.toArray(TracePod[]::new));

        assertThat(r.instances()).isEqualTo(7);
        assertThat(r.askedMilli()).isEqualTo(700);
        assertThat(r.handedOutMilli()).as("seven 1g instances: the whole card").isCloseTo(1000, within());
        assertThat(r.memoryHandedOut()).as("seven of eight memory slices").isCloseTo(7 / 8.0, within());
        assertThat(r.log().failed(7)).isTrue();
        assertThat(r.sharingAskedMilli()).isEqualTo(700);
        assertThat(r.sharingHandedOutMilli()).isCloseTo(1000, within());
        assertThat(r.profiles()).containsEntry("1g.10gb", 7L).containsEntry("7g.80gb", 0L);
    }

    @Test
    void keepingTheLargestProfilesLeavesRoomThatFirstFitLoses() {
        TracePod small = slice("small", 100);
        TracePod half = slice("half", 500); // a 4g instance, which may only start at slice 0
        List<Node> one = List.of(node("n", 1));

        MigReplay.Result kept = replay(MigReplay.Choice.KEEP_LARGEST, one, small, half);
        MigReplay.Result first = replay(MigReplay.Choice.FIRST_FIT, one, small, half);

        assertThat(kept.instances()).isEqualTo(2);
        assertThat(first.instances()).isEqualTo(1);
        assertThat(first.log().failed(1)).isTrue();
    }

    @Test
    void aWholeCardAskTakesOnlyAnEmptyCardAndASliceGoesToTheCardItLeavesFullest() {
        List<Node> nodes = List.of(node("a", 2), node("b", 1));
        MigReplay.Result r = replay(
                MigReplay.Choice.KEEP_LARGEST,
                nodes,
                slice("s1", 300), // 3g on a's first card (the first of the equally empty cards)
                new TracePod("two", Ask.wholeCards(1000, 1024, 2)), // needs two empty cards: none on a, b has one
                new TracePod("one", Ask.wholeCards(1000, 1024, 1)), // a's second card leaves a fuller than b
                slice("s2", 300)); // beside s1: the fullest card it fits
        assertThat(r.log().failed(1)).isTrue();
        assertThat(r.instances()).isEqualTo(3);
        assertThat(r.memoryHandedOut())
                .as("3g + 7g + 3g: 4 + 8 + 4 of 8 memory slices")
                .isCloseTo(2.0, within());
    }

    @Test
    void aPodNamingAModelGoesOnlyToItsNodesAndACpuPodTakesNoCard() {
        Node t4 = node("t4", 1);
        Node v100 = Node.of("v100", 64_000, 262_144, 110, List.of(Card.of(0, "v-gpu0", "V100M32", 32_768)));
        MigReplay.Result r = replay(
                MigReplay.Choice.KEEP_LARGEST,
                List.of(t4, v100),
                new TracePod("named", Ask.computeSlice(1000, 1024, 100).withModels(List.of("V100M32"))),
                new TracePod("cpu", Ask.cpuOnly(1000, 1024)));
        assertThat(r.instances()).isEqualTo(1);
        assertThat(r.log().failed(0)).isFalse();
        assertThat(r.log().failed(1)).isFalse();
        assertThat(r.log().used(1)).as("the CPU pod asked no GPU").isEqualTo(100);
    }

    @Test
    void onTheSyntheticTraceMigPlacesNoMoreThanSharesAndHandsOutAtLeastWhatWasAsked() {
        Experiment experiment =
                new Experiment(SyntheticTrace.generate(SyntheticTrace.DEFAULT_SEED), Experiment.PAPER_INFLATION);
        MigComparison.SeedResult r = new MigComparison(experiment, H100, List.of("best-fit")).run(42);

        assertThat(r.outcomes())
                .extracting(MigComparison.Outcome::name)
                .containsExactly("best-fit", "mig", "mig-first-fit");
        MigComparison.Outcome shares = r.outcomes().get(0);
        MigComparison.Outcome mig = r.outcomes().get(1);
        assertThat(mig.log().size()).isEqualTo(shares.log().size());
        assertThat(shares.mig()).as("shares hand out what is asked").isEmpty();
        MigReplay.Result instances = mig.mig().orElseThrow();
        assertThat(instances.instances()).isPositive();
        assertThat(instances.handedOutMilli()).isGreaterThanOrEqualTo(instances.askedMilli());
        long sharesAsked = shares.log().used(shares.log().size() - 1);
        assertThat(instances.askedMilli()).isLessThanOrEqualTo(sharesAsked);
    }

    private static org.assertj.core.data.Offset<Double> within() {
        return org.assertj.core.data.Offset.offset(1e-9);
    }
}
