package io.elasticgpu.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.elasticgpu.core.model.Ask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelReserveTest {

    /** Model A has 2 cards, B 6, C 2: A and C are a fifth of the cluster each. */
    private static final Map<String, Long> CAPACITY = Map.of("A", 2_000L, "B", 6_000L, "C", 2_000L);

    private static TypicalWorkload.Typical typical(Ask ask, double probability) {
        return new TypicalWorkload.Typical(ask, probability);
    }

    private static Ask card(String... models) {
        return Ask.wholeCards(1000, 0, 1).withModels(List.of(models));
    }

    @Test
    void noPodNamesAModelSoNothingIsKept() {
        ModelReserve reserve = ModelReserve.of(TypicalWorkload.of(List.of(typical(card(), 1))));

        assertThat(reserve.active()).isFalse();
        assertThat(reserve.kept(List.of(), CAPACITY)).isEmpty();
    }

    @Test
    void theNarrowestAreSpreadFirstEachOverWhatItsModelsHaveLeft() {
        // 30 % of the GPU asked names only A, which has 20 % of the cards; 10 % names A or B; 60 % names nothing
        ModelReserve reserve = ModelReserve.of(TypicalWorkload.of(
                List.of(typical(card("A"), 0.3), typical(card("A", "B"), 0.1), typical(card(), 0.6))));

        Map<String, Double> any = reserve.kept(List.of(), CAPACITY);
        // A's pods take all of A and more; the pods naming A or B find room only on B
        assertThat(any.get("A")).isCloseTo(0.3, within(1e-9));
        assertThat(any.get("B")).isCloseTo(0.1, within(1e-9));
        // a pod naming A or B keeps only what pods naming A alone want; one naming A alone keeps nothing
        Map<String, Double> both = reserve.kept(List.of("A", "B"), CAPACITY);
        assertThat(both).containsOnlyKeys("A");
        assertThat(both.get("A")).isCloseTo(0.3, within(1e-9));
        assertThat(reserve.kept(List.of("A"), CAPACITY)).isEmpty();
    }

    @Test
    void aSetWithRoomOnSeveralModelsIsSpreadByWhatEachHasLeft() {
        // 10 % names A or B: A has 0.2 of the cluster left, B 0.6
        ModelReserve reserve =
                ModelReserve.of(TypicalWorkload.of(List.of(typical(card("A", "B"), 0.1), typical(card(), 0.9))));

        Map<String, Double> any = reserve.kept(List.of(), CAPACITY);
        assertThat(any).containsOnlyKeys("A", "B");
        assertThat(any.get("A")).isCloseTo(0.025, within(1e-9));
        assertThat(any.get("B")).isCloseTo(0.075, within(1e-9));
        // in a cluster of A and B alone, a pod naming both is no narrower than one that names none
        assertThat(reserve.kept(List.of(), Map.of("A", 2_000L, "B", 6_000L))).isEmpty();
    }

    @Test
    void podsOfSeveralWholeCardsCountByAllTheGpuTheyAsk() {
        Ask eightAsk = Ask.wholeCards(8000, 0, 8).withModels(List.of("B"));
        ModelReserve reserve =
                ModelReserve.of(TypicalWorkload.of(List.of(typical(eightAsk, 0.1), typical(card(), 0.9))));

        // one eight-card pod asks eight times the GPU of a one-card pod: 0.8 of 1.7
        assertThat(reserve.kept(List.of(), CAPACITY).get("B")).isCloseTo(0.8 / 1.7, within(1e-9));
    }

    @Test
    void rareShapesThatTheTypicalPodsLeaveOutStillCount() {
        // 100 pods: 96 ask a card and name nothing, 4 name A, each a shape of its own (cut at 95 % coverage)
        List<Ask> asks = new ArrayList<>();
        for (int i = 0; i < 96; i++) {
            asks.add(card());
        }
        for (int i = 0; i < 4; i++) {
            asks.add(Ask.wholeCards(1000 + i, 0, 1).withModels(List.of("A")));
        }
        TypicalWorkload workload = TypicalWorkload.estimate(asks, 95);

        assertThat(workload.typicals()).extracting(t -> t.ask().models()).containsOnly(List.of());
        // grouped by the models named: four shapes, one group of 4 % of the GPU asked
        assertThat(workload.named()).singleElement().satisfies(n -> {
            assertThat(n.models()).containsExactly("A");
            assertThat(n.share()).isCloseTo(0.04, within(1e-9));
        });
        assertThat(ModelReserve.of(workload).kept(List.of(), CAPACITY).get("A")).isCloseTo(0.04, within(1e-9));
    }
}
