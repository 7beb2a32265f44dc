package io.elasticgpu.core.policy;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.random.RandomGenerator;

/**
 * The paper's baseline: a uniformly random node among those that fit (every node draws a random score, the highest
 * wins), and for a one-card slice a uniformly random fitting card.
 */
public final class RandomPolicy implements Policy {

    private final RandomGenerator random;

    public RandomPolicy(RandomGenerator random) {
        this.random = requireNonNull(random, "random");
    }

    @Override
    public String name() {
        return "random";
    }

    @Override
    public boolean cacheable() {
        return false;
    }

    @Override
    public Choice choose(Ask ask, NodeState s) {
        double score = random.nextDouble();
        if (!ask.sharesOneCard()) {
            return new Choice(score, ask.needsCards() ? CardChoice.linked(ask, s) : new int[0]);
        }
        int card = -1;
        int seen = 0;
        for (int i = 0; i < s.cardCount(); i++) {
            if (s.cardFits(ask, i) && random.nextInt(++seen) == 0) {
                card = i;
            }
        }
        return new Choice(score, new int[] {card});
    }
}
