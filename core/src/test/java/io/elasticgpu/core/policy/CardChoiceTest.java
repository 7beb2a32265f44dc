package io.elasticgpu.core.policy;

import static io.elasticgpu.core.Fixtures.withUsed;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CardChoiceTest {

    /** Cards 0-1 and 2-3 are NVLink pairs; every other pair crosses sockets. */
    private static Node twoPairs() {
        Topology t = Topology.builder(4)
                .link(0, 1, Link.nvlink(2))
                .link(2, 3, Link.nvlink(2))
                .build();
        return new Node("n", 64_000, 1 << 20, 110, cards(4), Map.of(), t);
    }

    private static List<Card> cards(int n) {
        List<Card> cards = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            cards.add(Card.of(i, "g" + i, "V100M32", 32_768));
        }
        return cards;
    }

    @Test
    void twoCardsComeFromOneNvlinkPairLowestFirst() {
        assertThat(CardChoice.linked(Ask.wholeCards(0, 0, 2), NodeState.empty(twoPairs())))
                .containsExactly(0, 1);
    }

    @Test
    void aBrokenPairIsSkippedForAWholeOne() {
        NodeState s = withUsed(twoPairs(), 1000, 0, 0, 0);
        assertThat(CardChoice.linked(Ask.wholeCards(0, 0, 2), s)).containsExactly(2, 3);
    }

    @Test
    void amongEquallyLinkedSetsTheLeastLoadedWins() {
        NodeState s = withUsed(twoPairs(), 0, 500, 0, 0);
        // both pairs are NVLinked; pair (0,1) holds 500 milli, pair (2,3) nothing
        assertThat(CardChoice.linked(new Ask(0, 0, 2, 300, 0, List.of()), s)).containsExactly(2, 3);
    }

    @Test
    void slicesGoToTheTightestOrTheRoomiestCard() {
        NodeState s = withUsed(twoPairs(), 600, 100, 0, 900);
        Ask sliceAsk = Ask.computeSlice(0, 0, 300);
        // free [400, 900, 1000, 100]
        assertThat(CardChoice.tightest(sliceAsk, s)).containsExactly(0);
        assertThat(CardChoice.roomiest(sliceAsk, s)).containsExactly(2);
    }

    @Test
    void largeNodesFindTheNvlinkIslandGreedily() {
        // 20 cards, an NVLink island on cards 4..13; C(20,10) = 184756 sets is too many to try
        Topology.Builder b = Topology.builder(20);
        for (int i = 4; i < 14; i++) {
            for (int j = i + 1; j < 14; j++) {
                b.link(i, j, Link.nvlink(1));
            }
        }
        Node node = new Node("big", 1, 1 << 20, 110, cards(20), Map.of(), b.build());
        assertThat(io.elasticgpu.core.model.CardSets.count(20, 10)).isGreaterThan(CardChoice.EXHAUSTIVE_LIMIT);
        assertThat(CardChoice.linked(Ask.wholeCards(0, 0, 10), NodeState.empty(node)))
                .containsExactly(4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
    }
}
