package io.elasticgpu.core.policy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.Optional;

/**
 * Scores a node for an ask and chooses the cards it would take there. Implementations are pure: no clock, no
 * I/O, randomness only through a generator given at construction.
 */
public interface Policy {

    /** The name users select it by, e.g. {@code fgd}. */
    String name();

    /**
     * Called only for nodes the ask fits ({@link NodeState#check} returned {@code FITS}); higher scores are
     * better, and the cards returned are exactly {@code ask.cards()} distinct cards that fit.
     */
    Choice choose(Ask ask, NodeState node);

    /**
     * Whether {@link #choose} depends on nothing but its arguments, so that a caller may reuse a choice until the
     * node changes. False for policies that draw random numbers.
     */
    default boolean cacheable() {
        return true;
    }

    /** Rescales the scores of one scheduling cycle, {@code scores[0..count)}, in place. Most policies need not. */
    default void normalize(double[] scores, int count) {}

    /**
     * Rollouts a placer that sees the whole cluster runs over the best-scored nodes before it chooses; none for
     * most policies.
     */
    default Optional<Lookahead> lookahead() {
        return Optional.empty();
    }
}
