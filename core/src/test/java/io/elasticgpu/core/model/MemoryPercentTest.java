package io.elasticgpu.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.core.placement.Placer;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.Reason;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** Memory asked as a percent of whichever card is given (HAMi's gpumem-percentage): its MiB follow the card. */
class MemoryPercentTest {

    private static Ask percent(int milli, int percent) {
        return new Ask(0, 0, 1, milli, 0, List.of(), percent);
    }

    @Test
    void thePercentBecomesMiBOfTheCardItIsPlacedOnRoundedDown() {
        Card t4 = Card.of(0, "t4", "T4", 15_360);
        Card a100 = Card.of(0, "a100", "A100", 81_920);
        assertThat(percent(300, 30).memoryMibOn(t4)).isEqualTo(4_608);
        assertThat(percent(300, 30).memoryMibOn(a100)).isEqualTo(24_576);
        assertThat(percent(0, 33).memoryMibOn(Card.of(0, "odd", "X", 1_000))).isEqualTo(330);
        assertThat(percent(0, 40).shareOf(t4))
                .as("a memory-only share weighs its percent")
                .isEqualTo(400);
        assertThat(new Ask(0, 0, 1, 300, 2_048, List.of()).memoryMibOn(a100)).isEqualTo(2_048);
    }

    @Test
    void aPercentGoesWithNeitherMiBNorWholeCardsNorAllOfTheMemory() {
        assertThatThrownBy(() -> new Ask(0, 0, 1, 300, 1_024, List.of(), 30)).hasMessageContaining("ask one of them");
        assertThatThrownBy(() -> new Ask(0, 0, 1, 1000, 0, List.of(), 30)).hasMessageContaining("whole cards");
        assertThatThrownBy(() -> percent(0, 100)).hasMessageContaining("0..99");
        assertThatThrownBy(() -> new Ask(0, 0, 0, 0, 0, List.of(), 30)).hasMessageContaining("0 cards");
    }

    @Test
    void placedOnANodeItHoldsItsMiBThere() {
        Node node = Node.of("n", 64_000, 256_000, 110, List.of(Card.of(0, "g0", "T4", 15_360)));
        NodeState state = NodeState.empty(node);
        state = state.with(Placer.placement(percent(500, 60), state, new int[] {0}));
        assertThat(state.freeMemory(0)).isEqualTo(15_360 - 9_216);
        assertThat(state.check(percent(100, 50)))
                .as("60 % + 50 % of the memory")
                .isEqualTo(Reason.INSUFFICIENT_GPU);
        assertThat(state.check(percent(100, 40))).isEqualTo(Reason.FITS);
    }

    /** Shares whose percents add up to at most 100 always fit on one card, whatever its memory: they round down. */
    @Property
    void percentsThatAddUpToAWholeCardFitOnIt(
            @ForAll @IntRange(min = 1, max = 200_000) int cardMib,
            @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 1, max = 99) Integer> wanted) {
        List<Integer> percents = new ArrayList<>();
        int sum = 0;
        for (int p : wanted) {
            if (sum + p <= 100) {
                percents.add(p);
                sum += p;
            }
        }
        Node node = Node.of("n", 64_000, 256_000, 110, List.of(Card.of(0, "g0", "X", cardMib)));
        NodeState state = NodeState.empty(node);
        for (int p : percents) {
            Ask ask = percent(0, p);
            assertThat(state.check(ask))
                    .as("%d %% after %s on %d MiB", p, percents, cardMib)
                    .isEqualTo(Reason.FITS);
            state = state.with(Placer.placement(ask, state, new int[] {0}));
        }
        assertThat(state.freeMemory(0)).isGreaterThanOrEqualTo(0);
    }
}
