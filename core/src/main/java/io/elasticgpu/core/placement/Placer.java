package io.elasticgpu.core.placement;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.policy.Choice;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.ClusterState;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.Reason;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Runs scheduling cycles with one policy: every node the ask fits is scored, the highest score wins, and on
 * equal scores the node earlier in cluster order wins (the simulator puts nodes in their priority order). A policy
 * with a {@link io.elasticgpu.core.policy.Lookahead} has its best-scored nodes rolled out first ({@link Rollouts})
 * for pods that ask for GPU, and the rollout decides among them.
 *
 * <p>Scores are kept per node until that node's state changes, so a cycle after a placement rescores one node, not
 * the cluster. Not thread-safe; one placer per scheduling thread.
 */
public final class Placer {

    private final Policy policy;
    private final ScoreCache cache = new ScoreCache();
    private final Rollouts rollouts;
    private double[] scores = new double[0];
    private int[] nodes = new int[0];
    private Choice[] choices = new Choice[0];

    public Placer(Policy policy) {
        this.policy = requireNonNull(policy, "policy");
        this.rollouts = policy.lookahead().map(l -> new Rollouts(policy, l)).orElse(null);
    }

    public Policy policy() {
        return policy;
    }

    /** Chooses where {@code ask} goes in {@code cluster}; changes nothing. */
    public Decision place(Ask ask, ClusterState cluster) {
        requireNonNull(ask, "ask");
        grow(cluster.size());
        int fitting = 0;
        Map<Reason, Integer> rejected = null;
        ScoreCache.Key key = new ScoreCache.Key(ask);
        for (int i = 0; i < cluster.size(); i++) {
            NodeState node = cluster.node(i);
            Reason reason = node.check(ask);
            if (reason != Reason.FITS) {
                if (rejected == null) {
                    rejected = new EnumMap<>(Reason.class);
                }
                rejected.merge(reason, 1, Integer::sum);
                continue;
            }
            Choice choice = policy.cacheable() ? cache.get(i, node, key, policy) : policy.choose(ask, node);
            scores[fitting] = choice.score();
            choices[fitting] = choice;
            nodes[fitting] = i;
            fitting++;
        }
        if (fitting == 0) {
            return unschedulable(cluster.size(), rejected == null ? Map.of() : rejected);
        }
        policy.normalize(scores, fitting);
        int best = 0;
        for (int j = 1; j < fitting; j++) {
            if (scores[j] > scores[best]) {
                best = j;
            }
        }
        if (rollouts != null && ask.needsCards() && fitting > 1) {
            best = lookahead(ask, cluster, fitting);
        }
        NodeState winner = cluster.node(nodes[best]);
        return new Decision.Placed(placement(ask, winner, choices[best].cards()), scores[best]);
    }

    /**
     * The position among the fitting nodes that the look-ahead chooses: of the best-scored ones (the earlier node
     * first on equal scores) that are open to the ask ({@link Rollouts#candidates}), the one whose rollout grows
     * fragmentation least.
     */
    private int lookahead(Ask ask, ClusterState cluster, int fitting) {
        int[] top = rollouts.candidates(
                ask, cluster, fitting, j -> true, j -> cluster.node(nodes[j]), (a, b) -> scores[a] > scores[b]);
        int n = top.length;
        int[] candidates = new int[n];
        int[][] cards = new int[n][];
        for (int k = 0; k < n; k++) {
            candidates[k] = nodes[top[k]];
            cards[k] = choices[top[k]].cards();
        }
        return top[rollouts.choose(ask, cluster, candidates, cards, n)];
    }

    /** The shares {@code ask} takes on {@code cards} of {@code node}: whole cards take all their memory. */
    public static Grant placement(Ask ask, NodeState node, int[] cards) {
        CardShare[] shares = new CardShare[cards.length];
        for (int i = 0; i < cards.length; i++) {
            Card card = node.card(cards[i]);
            shares[i] = ask.wholeCards()
                    ? new CardShare(cards[i], card.computeMilli(), card.memoryMib())
                    : new CardShare(cards[i], ask.milliOn(card), ask.memoryMibOn(card));
        }
        return new Grant(node.name(), ask, java.util.List.of(shares));
    }

    private static Decision unschedulable(int nodes, Map<Reason, Integer> rejected) {
        String detail = rejected.entrySet().stream()
                .map(e -> e.getValue() + " " + e.getKey().name().toLowerCase().replace('_', ' '))
                .collect(Collectors.joining(", "));
        String message = "0/%d nodes fit%s".formatted(nodes, detail.isEmpty() ? "" : ": " + detail);
        return new Decision.Unschedulable(message, rejected);
    }

    private void grow(int size) {
        if (scores.length < size) {
            scores = new double[size];
            nodes = new int[size];
            choices = new Choice[size];
        }
    }
}
