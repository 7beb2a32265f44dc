package io.elasticgpu.core.policy;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.Optional;

/**
 * A policy whose scores and cards are another's, with a {@link Lookahead} that a placer running whole scheduling
 * cycles uses to choose among the best-scored nodes. Scored node by node (the extender's verbs), it is its base.
 */
public final class LookaheadPolicy implements Policy {

    private final String name;
    private final Policy base;
    private final Lookahead lookahead;

    /** How many of the best-scored nodes {@code elastic-lookahead} rolls out. */
    public static final int CANDIDATES = 32;

    /** How many drawn pods follow the ask in each of {@code elastic-lookahead}'s rollouts. */
    public static final int PODS_PER_ROLLOUT = 20;

    public LookaheadPolicy(String name, Policy base, Lookahead lookahead) {
        this.name = requireNonNull(name, "name");
        this.base = requireNonNull(base, "base");
        this.lookahead = requireNonNull(lookahead, "lookahead");
    }

    /**
     * {@code elastic-lookahead}: {@code elastic}'s scores, and before each choice of a node for a GPU pod, rollouts
     * of {@value #PODS_PER_ROLLOUT} pods drawn from the workload on its {@value #CANDIDATES} best nodes, judged by
     * {@code elastic}'s fragmentation measure.
     */
    public static LookaheadPolicy elastic(TypicalWorkload workload) {
        return new LookaheadPolicy(
                PolicyName.ELASTIC_LOOKAHEAD.text(),
                FgdPolicy.elastic(workload),
                new Lookahead(CANDIDATES, PODS_PER_ROLLOUT, workload, Fragmentation.allResources(workload)));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Choice choose(Ask ask, NodeState node) {
        return base.choose(ask, node);
    }

    @Override
    public boolean cacheable() {
        return base.cacheable();
    }

    @Override
    public void normalize(double[] scores, int count) {
        base.normalize(scores, count);
    }

    @Override
    public Optional<Lookahead> lookahead() {
        return Optional.of(lookahead);
    }
}
