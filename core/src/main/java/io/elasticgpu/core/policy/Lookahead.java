package io.elasticgpu.core.policy;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;
import java.util.List;

/**
 * Rollouts a placer runs before it chooses: the {@code candidates} best nodes by the policy's score each get the
 * request placed on them, then {@code podsPerRollout} pods drawn from the expected workload placed after it, each
 * where the policy sends it; the candidate whose rollout grows the cluster's {@code measure} least wins, and on equal
 * growth the better-scored one. Immutable.
 *
 * @param candidates     how many of the best-scored nodes are tried, at least 2
 * @param podsPerRollout how many drawn pods follow the request in each rollout, at least 1
 * @param workload       where the drawn pods come from, each shape as often as its probability
 * @param measure        the fragmentation a rollout is judged by
 */
public record Lookahead(int candidates, int podsPerRollout, TypicalWorkload workload, Fragmentation measure) {

    public Lookahead {
        if (candidates < 2) {
            throw new IllegalArgumentException("candidates must be at least 2, was %d".formatted(candidates));
        }
        if (podsPerRollout < 1) {
            throw new IllegalArgumentException("podsPerRollout must be at least 1, was %d".formatted(podsPerRollout));
        }
        requireNonNull(workload, "workload");
        requireNonNull(measure, "measure");
        if (workload.typicals().isEmpty()) {
            throw new IllegalArgumentException("a look-ahead needs a workload with at least one shape");
        }
    }

    /** The shapes pods are drawn from, in the workload's order. */
    public List<Ask> shapes() {
        return workload.typicals().stream().map(TypicalWorkload.Typical::ask).toList();
    }

    /** The cumulative probabilities of {@link #shapes()}, the last exactly 1. */
    public double[] cumulative() {
        List<TypicalWorkload.Typical> t = workload.typicals();
        double[] out = new double[t.size()];
        double sum = 0;
        for (int i = 0; i < out.length; i++) {
            sum += t.get(i).probability();
            out[i] = sum;
        }
        for (int i = 0; i < out.length; i++) {
            out[i] = sum > 0 ? out[i] / sum : (i + 1.0) / out.length;
        }
        out[out.length - 1] = 1;
        return out;
    }
}
