package io.elasticgpu.core;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.ArrayList;
import java.util.List;

/** Small builders shared by core tests. */
public final class Fixtures {

    private Fixtures() {}

    /** A node of {@code cards} healthy cards of {@code model} with 16 GiB each. */
    public static Node node(String name, long cpuMilli, long memoryMib, int cards, String model) {
        List<Card> list = new ArrayList<>();
        for (int i = 0; i < cards; i++) {
            list.add(Card.of(i, name + "-gpu" + i, model, 16_384));
        }
        return Node.of(name, cpuMilli, memoryMib, 110, list);
    }

    /**
     * A state of {@code node} where card i already holds {@code usedMilli[i]} milli from a pod of no CPU; 1000 is a
     * whole-card pod, which holds the card's memory too.
     */
    public static NodeState withUsed(Node node, int... usedMilli) {
        NodeState state = NodeState.empty(node);
        for (int i = 0; i < usedMilli.length; i++) {
            if (usedMilli[i] > 0) {
                Ask ask = Ask.computeSlice(0, 0, usedMilli[i]);
                long memory = ask.wholeCards() ? node.cards().get(i).memoryMib() : 0;
                state = state.with(new Grant(node.name(), ask, List.of(new CardShare(i, usedMilli[i], memory))));
            }
        }
        return state;
    }
}
