package io.elasticgpu.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeAndTopologyTest {

    @Test
    void nvlinkOutranksEveryPciePathAndMoreLanesOutrankFewer() {
        assertThat(Link.nvlink(1).rank())
                .isGreaterThan(Link.of(LinkKind.PCIE_SWITCH).rank());
        assertThat(Link.nvlink(2).rank()).isGreaterThan(Link.nvlink(1).rank());
        assertThat(Link.of(LinkKind.PCIE_SWITCH).rank())
                .isGreaterThan(Link.of(LinkKind.HOST_BRIDGE).rank());
        assertThat(Link.of(LinkKind.HOST_BRIDGE).rank())
                .isGreaterThan(Link.of(LinkKind.NUMA_NODE).rank());
        assertThat(Link.of(LinkKind.NUMA_NODE).rank())
                .isGreaterThan(Link.of(LinkKind.CROSS_SOCKET).rank());
    }

    @Test
    void topologyLinksBothDirections() {
        Topology t = Topology.builder(3).link(0, 2, Link.nvlink(4)).build();
        assertThat(t.between(2, 0)).isEqualTo(Link.nvlink(4));
        assertThat(t.between(0, 1)).isEqualTo(Link.UNKNOWN);
        assertThat(t.rank(0, 2)).isEqualTo(14);
    }

    @Test
    void theWeakestRankOfASetIsItsLowestPairAndZeroForOneCard() {
        Topology t = Topology.builder(3)
                .link(0, 1, Link.nvlink(4))
                .link(1, 2, Link.nvlink(2))
                .link(0, 2, Link.of(LinkKind.PCIE_SWITCH))
                .build();
        assertThat(t.weakestRank(new int[] {0, 1})).isEqualTo(Link.nvlink(4).rank());
        assertThat(t.weakestRank(new int[] {0, 1, 2}))
                .isEqualTo(Link.of(LinkKind.PCIE_SWITCH).rank());
        assertThat(t.weakestRank(new int[] {2})).isZero();
    }

    @Test
    void topologyRejectsLinkingACardToItself() {
        assertThatThrownBy(() -> Topology.builder(2).link(1, 1, Link.nvlink(1)))
                .hasMessage("topology: cannot link card 1 to card 1 on a node of 2 cards");
    }

    @Test
    void linkKindAndLanesMustAgree() {
        assertThatThrownBy(() -> new Link(LinkKind.NVLINK, 0)).hasMessage("link: NVLINK needs nvlinks >= 1, was 0");
        assertThatThrownBy(() -> new Link(LinkKind.PCIE_SWITCH, 2))
                .hasMessage("link: PCIE_SWITCH cannot have nvlinks, was 2");
    }

    @Test
    void nodeRejectsCardsOutOfOrder() {
        List<Card> cards = List.of(Card.of(1, "a", "T4", 1), Card.of(0, "b", "T4", 1));
        assertThatThrownBy(() -> Node.of("n1", 1, 1, 1, cards))
                .hasMessage("node n1: card at position 0 has index 1; indexes must be 0..1 in order");
    }

    @Test
    void nodeRejectsATopologyOfAnotherSize() {
        List<Card> cards = List.of(Card.of(0, "a", "T4", 1));
        assertThatThrownBy(() -> new Node("n1", 1, 1, 1, cards, Map.of(), Topology.uniform(2, Link.UNKNOWN)))
                .hasMessage("node n1: topology covers 2 cards but the node has 1");
    }

    @Test
    void cardRejectsComputeAboveAWholeCard() {
        assertThatThrownBy(() -> new Card(0, "g", "T4", 1, 1001, Health.HEALTHY, -1))
                .hasMessage("card g: computeMilli must be 1..1000, was 1001");
    }

    @Test
    void placementRejectsTheSameCardTwice() {
        Ask ask = new Ask(0, 0, 2, 100, 0, List.of());
        assertThatThrownBy(() -> new Grant("n1", ask, List.of(new CardShare(0, 100, 0), new CardShare(0, 100, 0))))
                .hasMessage("grant on n1: card 0 chosen twice");
    }

    @Test
    void placementMustTakeAsManyCardsAsAsked() {
        assertThatThrownBy(() -> new Grant("n1", Ask.wholeCards(0, 0, 2), List.of(new CardShare(0, 1000, 0))))
                .hasMessage("grant on n1: the ask is for 2 cards but 1 were chosen");
    }
}
