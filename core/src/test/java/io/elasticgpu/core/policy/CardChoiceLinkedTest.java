package io.elasticgpu.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.LinkKind;
import io.elasticgpu.core.model.Topology;
import org.junit.jupiter.api.Test;

/** {@link CardChoice#bestLinked}: the node agent's choice among the cards kubelet offers (it was LinkedCards). */
class CardChoiceLinkedTest {

    /** 8 cards: NVLink islands {0,1,2,3} and {4,5,6,7} (12 lanes), the islands joined across sockets. */
    private static Topology twoIslands() {
        Topology.Builder b = Topology.builder(8);
        for (int island = 0; island < 8; island += 4) {
            for (int a = island; a < island + 4; a++) {
                for (int c = a + 1; c < island + 4; c++) {
                    b.link(a, c, Link.nvlink(12));
                }
            }
        }
        return b.build();
    }

    @Test
    void fourCardsComeFromOneIsland() {
        int[] chosen = CardChoice.bestLinked(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, 4, twoIslands(), c -> 0);

        assertThat(chosen).containsExactly(0, 1, 2, 3); // both islands tie on links and load: lowest indexes
    }

    @Test
    void aBrokenIslandLosesToAWholeOne() {
        int[] chosen = CardChoice.bestLinked(new int[] {0, 1, 2, 4, 5, 6, 7}, 4, twoIslands(), c -> 0);

        assertThat(chosen).containsExactly(4, 5, 6, 7);
    }

    @Test
    void amongEquallyLinkedCardsTheLeastLoadedWin() {
        int[] load = {3, 0, 2, 0, 1, 1, 1, 1};

        int[] chosen = CardChoice.bestLinked(
                new int[] {0, 1, 2, 3}, 2, Topology.uniform(8, Link.of(LinkKind.PCIE_SWITCH)), c -> load[c]);

        assertThat(chosen).containsExactly(1, 3);
    }
}
