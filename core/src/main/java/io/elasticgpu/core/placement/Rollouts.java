package io.elasticgpu.core.placement;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.policy.Choice;
import io.elasticgpu.core.policy.Lookahead;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.ClusterState;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.Reason;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The look-ahead of a {@link Lookahead}: for each candidate node, place the request there and then the same drawn
 * pods, each on the node the policy scores best (the earlier node on equal scores, as the placer chooses), and keep
 * the candidate whose rollout grows fragmentation least. Only the nodes a rollout touches are copied; the others'
 * scores for the drawn shapes are kept per node until that node changes. Draws are seeded from the decision's
 * number, so a replay repeats exactly. Not thread-safe.
 */
final class Rollouts {

    /** A node the shape does not fit, in the per-node cache. */
    private static final Choice NO_FIT = new Choice(Double.NEGATIVE_INFINITY, new int[0]);

    private final Policy policy;
    private final Lookahead lookahead;
    private final List<Ask> shapes;
    private final double[] cumulative;
    private NodeState[] states = new NodeState[0];
    private Choice[][] choices = new Choice[0][];
    private long decisions;

    Rollouts(Policy policy, Lookahead lookahead) {
        this.policy = policy;
        this.lookahead = lookahead;
        this.shapes = lookahead.shapes();
        this.cumulative = lookahead.cumulative();
    }

    /**
     * The position in {@code candidates} (cluster indexes, best first) of the node {@code request} should go to.
     *
     * @param cards the cards the policy chose on each candidate
     */
    int choose(Ask request, ClusterState cluster, int[] candidates, int[][] cards, int count) {
        long decision = decisions++;
        if (count < 2) {
            return 0;
        }
        grow(cluster.size());
        int pods = lookahead.podsPerRollout();
        SplittableRandom random = new SplittableRandom(0x5DEE_CE66_DL ^ (decision * 0x9E37_79B9_7F4A_7C15L));
        int[] drawn = new int[pods];
        int[][] best = new int[shapes.size()][];
        for (int m = 0; m < pods; m++) {
            drawn[m] = draw(random.nextDouble());
            if (best[drawn[m]] == null) {
                best[drawn[m]] = best(drawn[m], cluster, pods + 2);
            }
        }
        int winner = 0;
        double least = Double.POSITIVE_INFINITY;
        int[] touched = new int[pods + 1];
        NodeState[] touchedState = new NodeState[pods + 1];
        List<NodeState> seen = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            int node = candidates[k];
            NodeState before = cluster.node(node);
            if (seen.stream().anyMatch(x -> alike(x, before))) {
                continue; // a node alike in every resource rolls out alike: the better-ranked one stands for it
            }
            seen.add(before);
            touched[0] = node;
            touchedState[0] = before.with(Placer.placement(request, before, cards[k]));
            int size = 1;
            double growth = lookahead.measure().of(touchedState[0])
                    - lookahead.measure().of(before);
            for (int m = 0; m < pods; m++) {
                Ask shape = shapes.get(drawn[m]);
                int at = -1;
                double score = 0;
                int[] chosen = null;
                for (int t = 0; t < size; t++) {
                    NodeState s = touchedState[t];
                    if (s.check(shape) != Reason.FITS) {
                        continue;
                    }
                    Choice c = policy.choose(shape, s);
                    if (at < 0 || c.score() > score || (c.score() == score && touched[t] < at)) {
                        at = touched[t];
                        score = c.score();
                        chosen = c.cards();
                    }
                }
                for (int i : best[drawn[m]]) {
                    if (contains(touched, size, i)) {
                        continue;
                    }
                    Choice c = choices[i][drawn[m]];
                    if (at < 0 || c.score() > score || (c.score() == score && i < at)) {
                        at = i;
                        score = c.score();
                        chosen = c.cards();
                    }
                    break;
                }
                if (at < 0) {
                    continue;
                }
                int slot = indexOf(touched, size, at);
                NodeState old = slot >= 0 ? touchedState[slot] : cluster.node(at);
                NodeState updated = old.with(Placer.placement(shape, old, chosen));
                growth += lookahead.measure().of(updated) - lookahead.measure().of(old);
                if (slot < 0) {
                    slot = size++;
                    touched[slot] = at;
                }
                touchedState[slot] = updated;
            }
            if (growth < least - 1e-9) {
                least = growth;
                winner = k;
            }
        }
        return winner;
    }

    /**
     * Whether two nodes are alike in everything a rollout on them reads besides their position: model, links and
     * every free resource.
     */
    private static boolean alike(NodeState a, NodeState b) {
        if (a.cardCount() != b.cardCount()
                || a.freeCpu() != b.freeCpu()
                || a.freeMemory() != b.freeMemory()
                || a.freePods() != b.freePods()
                || !a.node().model().equals(b.node().model())
                || !a.node().topology().equals(b.node().topology())) {
            return false;
        }
        for (int i = 0; i < a.cardCount(); i++) {
            if (a.freeShare(i) != b.freeShare(i)
                    || a.freeMemory(i) != b.freeMemory(i)
                    || a.healthy(i) != b.healthy(i)) {
                return false;
            }
        }
        return true;
    }

    private int draw(double u) {
        for (int i = 0; i < cumulative.length; i++) {
            if (u < cumulative[i]) {
                return i;
            }
        }
        return cumulative.length - 1;
    }

    /** The {@code limit} nodes that score best for shape {@code s}, best first, the earlier node first on a tie. */
    private int[] best(int s, ClusterState cluster, int limit) {
        int[] index = new int[limit];
        double[] score = new double[limit];
        int n = 0;
        Ask shape = shapes.get(s);
        for (int i = 0; i < cluster.size(); i++) {
            NodeState node = cluster.node(i);
            if (states[i] != node) {
                states[i] = node;
                Arrays.fill(choices[i], null);
            }
            Choice c = choices[i][s];
            if (c == null) {
                c = node.check(shape) == Reason.FITS ? policy.choose(shape, node) : NO_FIT;
                choices[i][s] = c;
            }
            if (c == NO_FIT || (n == limit && c.score() <= score[n - 1])) {
                continue;
            }
            int p = n < limit ? n++ : n - 1;
            while (p > 0 && score[p - 1] < c.score()) {
                score[p] = score[p - 1];
                index[p] = index[p - 1];
                p--;
            }
            score[p] = c.score();
            index[p] = i;
        }
        return Arrays.copyOf(index, n);
    }

    private void grow(int size) {
        if (states.length < size) {
            int old = states.length;
            states = Arrays.copyOf(states, size);
            choices = Arrays.copyOf(choices, size);
            for (int i = old; i < size; i++) {
                choices[i] = new Choice[shapes.size()];
            }
        }
    }

    private static boolean contains(int[] a, int size, int v) {
        return indexOf(a, size, v) >= 0;
    }

    private static int indexOf(int[] a, int size, int v) {
        for (int i = 0; i < size; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        return -1;
    }
}
