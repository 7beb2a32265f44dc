package io.elasticgpu.core.placement;

import static io.elasticgpu.core.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.policy.BinpackPolicy;
import io.elasticgpu.core.policy.Choice;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.ClusterState;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.Reason;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlacerTest {

    @Test
    void onEqualScoresTheEarlierNodeWins() {
        ClusterState cluster =
                new ClusterState(List.of(node("b", 8000, 8000, 2, "T4"), node("a", 8000, 8000, 2, "T4")));
        Decision d = new Placer(new BinpackPolicy()).place(Ask.wholeCards(1000, 1000, 1), cluster);
        assertThat(d).isInstanceOfSatisfying(Decision.Placed.class, p -> {
            assertThat(p.placement().node()).isEqualTo("b");
            assertThat(p.placement().cardIndexes()).containsExactly(0);
        });
    }

    @Test
    void theHigherScoreWinsWhateverTheOrder() {
        ClusterState cluster =
                new ClusterState(List.of(node("b", 8000, 8000, 2, "T4"), node("a", 8000, 8000, 2, "T4")));
        Placer placer = new Placer(new BinpackPolicy());
        cluster.assume(((Decision.Placed) placer.place(Ask.wholeCards(0, 0, 1), cluster)).placement());
        // b is now half full: binpack sends the next card there too, not to a
        Decision d = placer.place(Ask.wholeCards(0, 0, 1), cluster);
        assertThat(((Decision.Placed) d).placement().node()).isEqualTo("b");
        assertThat(((Decision.Placed) d).placement().cardIndexes()).containsExactly(1);
    }

    @Test
    void saysWhyNothingFits() {
        ClusterState cluster =
                new ClusterState(List.of(node("a", 1000, 8000, 2, "T4"), node("b", 8000, 8000, 1, "T4")));
        Decision d = new Placer(new BinpackPolicy()).place(Ask.wholeCards(2000, 0, 2), cluster);
        assertThat(d)
                .isEqualTo(new Decision.Unschedulable(
                        "0/2 nodes fit: 1 insufficient cpu, 1 insufficient gpu",
                        Map.of(Reason.INSUFFICIENT_CPU, 1, Reason.INSUFFICIENT_GPU, 1)));
    }

    @Test
    void rescoresOnlyNodesThatChanged() {
        CountingPolicy counting = new CountingPolicy();
        ClusterState cluster = new ClusterState(List.of(
                node("a", 8000, 8000, 2, "T4"), node("b", 8000, 8000, 2, "T4"), node("c", 8000, 8000, 2, "T4")));
        Placer placer = new Placer(counting);
        Ask ask = Ask.computeSlice(0, 0, 100);
        cluster.assume(((Decision.Placed) placer.place(ask, cluster)).placement());
        assertThat(counting.calls).isEqualTo(3);
        placer.place(ask, cluster);
        // only the node the first pod went to is scored again
        assertThat(counting.calls).isEqualTo(4);
        placer.place(Ask.computeSlice(0, 0, 200), cluster);
        // a new request shape is scored everywhere
        assertThat(counting.calls).isEqualTo(7);
    }

    private static final class CountingPolicy implements Policy {
        int calls;

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public Choice choose(Ask ask, NodeState node) {
            calls++;
            return new Choice(
                    0, node.fittingCards(ask).length > 0 ? new int[] {node.fittingCards(ask)[0]} : new int[0]);
        }
    }
}
