package io.elasticgpu.core.snapshot;

import static io.elasticgpu.core.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The one rule of victim choice on a node of two cards of 16,384 MiB (compute in milli: 1,000 a card). The pool is
 * given least important first; a pod's name says its card.
 */
class EvictionsTest {

    private final Node node = node("n", 64_000, 512_000, 2, "A100");
    private NodeState state = NodeState.empty(node);
    private final List<Evictions.Evictable<String>> pool = new ArrayList<>();

    /** A pod of {@code priority} holding {@code milli} of card {@code card}, spared by every disruption budget. */
    private void holds(String id, int card, int milli, int priority) {
        holds(id, card, milli, priority, true);
    }

    private void holds(String id, int card, int milli, int priority, boolean spared) {
        Grant g = new Grant(node.name(), Ask.computeSlice(0, 0, milli), List.of(new CardShare(card, milli, 0)));
        state = state.with(g);
        pool.add(new Evictions.Evictable<>(id, List.of(g), priority, spared));
    }

    /** The victims for a preemptor asking {@code milli} of one card, the pool ordered by priority (stable). */
    private Optional<List<String>> victims(int milli, Set<String> protectedIds) {
        Ask ask = Ask.computeSlice(0, 0, milli);
        List<Evictions.Evictable<String>> ordered = new ArrayList<>(pool);
        ordered.sort(Comparator.comparingInt(Evictions.Evictable::priority));
        return Evictions.choose(state, ordered, 1, new Evictions.Judge<>() {
            @Override
            public boolean fits(NodeState s) {
                return s.check(ask) == Reason.FITS;
            }

            @Override
            public int link(NodeState s) {
                return 0;
            }

            @Override
            public int violations(List<String> victims) {
                return (int) victims.stream().filter(protectedIds::contains).count();
            }
        });
    }

    @Test
    void oneCardsThreeSlicesGoRatherThanTwoOnEachCard() {
        for (int i = 0; i < 3; i++) {
            holds("a" + i, 0, 300, 0);
            holds("b" + i, 1, 300, 0);
        }
        // 100 free on each card: 800 needs the three of one card (100 + 900); two of each card would leave 700.
        assertThat(victims(800, Set.of())).contains(List.of("a2", "a1", "a0"));
    }

    @Test
    void lowerPriorityBeforeFewerPods() {
        holds("big", 0, 1000, 10);
        holds("small-0", 1, 500, 0);
        holds("small-1", 1, 500, 0);
        // {big} is one pod of priority 10, {small-0, small-1} two of priority 0: the two go.
        assertThat(victims(1000, Set.of())).contains(List.of("small-1", "small-0"));
    }

    @Test
    void aPodWhoseEvictionBreaksABudgetIsSparedWhenAnotherSetFrees() {
        holds("guarded", 0, 1000, 0, false);
        holds("other", 1, 1000, 0);
        assertThat(victims(1000, Set.of("guarded"))).contains(List.of("other"));
    }

    @Test
    void noSetWhenEvictingTheWholePoolDoesNotFree() {
        holds("low", 0, 400, 0);
        holds("low", 1, 400, 0);
        state = state.with(new Grant(node.name(), Ask.computeSlice(0, 0, 500), List.of(new CardShare(0, 500, 0))));
        state = state.with(new Grant(node.name(), Ask.computeSlice(0, 0, 500), List.of(new CardShare(1, 500, 0))));
        // Each card keeps 500 of a pod that is not in the pool: at most 500 free, 600 asked.
        assertThat(victims(600, Set.of())).isEmpty();
    }
}
