package io.elasticgpu.core.placement;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.policy.Choice;
import io.elasticgpu.core.policy.Lookahead;
import io.elasticgpu.core.policy.ModelReserve;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.NodeStates;
import io.elasticgpu.core.snapshot.Reason;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * The look-ahead of a {@link Lookahead}: for each candidate node, place the ask there and then the same drawn
 * pods, each on the node the policy scores best (the lower index on equal scores, as the placer chooses), and keep
 * the candidate whose rollout grows fragmentation least. Only the nodes a rollout touches are copied. Draws are
 * seeded from the decision's number, so a replay repeats exactly.
 *
 * <p>Where a drawn pod goes outside the nodes its rollout touched is read from its shape's best nodes, which are
 * kept between decisions: each decision first finds the nodes whose state changed (one identity check per node) and
 * rescores only those, for the shapes drawn so far. A shape's best nodes are rescanned in full only the first time it
 * is drawn and when changes have taken so many from its top that fewer are known than a rollout may read. The
 * result is the same as scanning every node for every drawn shape in every decision, at a cost that grows with the
 * nodes that changed rather than with the cluster. Not thread-safe.
 */
public final class Rollouts {

    /** A node the shape does not fit, in the per-node cache. */
    private static final Choice NO_FIT = new Choice(Double.NEGATIVE_INFINITY, new int[0]);

    /** How many times more of a shape's best nodes are kept than a rollout reads at most. */
    private static final int KEPT_PER_READ = 4;

    private final Policy policy;
    private final Lookahead lookahead;
    private final List<Ask> asks;
    private final double[] cumulative;
    /** The most best nodes of one shape a rollout reads: one per drawn pod, the ask's node and one spare. */
    private final int reads;

    private NodeState[] states = new NodeState[0];
    private Choice[][] choices = new Choice[0][];
    private double[] measured = new double[0];
    private final Best[] best;
    private final Headroom headroom;
    private long decisions;

    // one rollout's nodes: their cluster index, state, measure and choices per shape (null: not yet asked)
    private final int[] touched;
    private final NodeState[] touchedState;
    private final double[] touchedMeasure;
    private final Choice[][] touchedChoice;

    public Rollouts(Policy policy, Lookahead lookahead) {
        this.policy = requireNonNull(policy, "policy");
        this.lookahead = requireNonNull(lookahead, "lookahead");
        this.asks = lookahead.shapes();
        this.cumulative = lookahead.cumulative();
        this.reads = lookahead.podsPerRollout() + 2;
        this.best = new Best[asks.size()];
        this.headroom = new Headroom(ModelReserve.of(lookahead.workload()));
        int pods = lookahead.podsPerRollout();
        touched = new int[pods + 1];
        touchedState = new NodeState[pods + 1];
        touchedMeasure = new double[pods + 1];
        touchedChoice = new Choice[pods + 1][asks.size()];
    }

    /**
     * The positions to roll out for {@code ask}: up to {@link Lookahead#candidates} of the {@code count}
     * positions it {@code fits}, best first by {@code before} (the earlier on a tie), of those whose node is open to
     * it: where its model, once the ask is placed, still has free what it keeps for pods that accept fewer models
     * ({@link ModelReserve}). When no fitting node is open, or no pod names a model, of all that it fits.
     *
     * @param node the node at a position
     */
    public int[] candidates(
            Ask ask,
            NodeStates cluster,
            int count,
            IntPredicate fits,
            IntFunction<NodeState> node,
            BestPositions.Before before) {
        refresh(cluster);
        int wanted = lookahead.candidates();
        if (headroom.active()) {
            int[] open =
                    BestPositions.of(count, wanted, j -> fits.test(j) && headroom.open(ask, node.apply(j)), before);
            if (open.length > 0) {
                return open;
            }
        }
        return BestPositions.of(count, wanted, fits, before);
    }

    /**
     * The position in {@code candidates} (indexes in {@code cluster}, best first) of the node {@code ask} should
     * go to.
     *
     * @param cards the cards the policy chose on each candidate
     */
    public int choose(Ask ask, NodeStates cluster, int[] candidates, int[][] cards, int count) {
        long decision = decisions++;
        if (count < 2) {
            return 0;
        }
        refresh(cluster);
        int pods = lookahead.podsPerRollout();
        SplittableRandom random = new SplittableRandom(0x5DEE_CE66_DL ^ (decision * 0x9E37_79B9_7F4A_7C15L));
        int[] drawn = new int[pods];
        for (int m = 0; m < pods; m++) {
            drawn[m] = draw(random.nextDouble());
            top(drawn[m]);
        }
        int winner = 0;
        double least = Double.POSITIVE_INFINITY;
        List<NodeState> seen = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            NodeState before = cluster.node(candidates[k]);
            if (seen.stream().anyMatch(x -> alike(x, before))) {
                continue; // a node alike in every resource rolls out alike: the better-ranked one stands for it
            }
            seen.add(before);
            double growth = rollout(ask, candidates[k], before, cards[k], drawn);
            if (growth < least - 1e-9) {
                least = growth;
                winner = k;
            }
        }
        return winner;
    }

    /** How much fragmentation grows when the ask goes to {@code node} and the drawn pods follow it. */
    private double rollout(Ask ask, int node, NodeState before, int[] cards, int[] drawn) {
        int size = touch(0, node, before.with(Placer.placement(ask, before, cards)));
        double growth = touchedMeasure[0] - measured(node, before);
        for (int s : drawn) {
            Ask drawnAsk = asks.get(s);
            int at = -1;
            int slot = -1;
            double score = 0;
            int[] chosen = null;
            for (int t = 0; t < size; t++) {
                Choice c = touchedChoice(t, s, drawnAsk);
                if (c != NO_FIT && (at < 0 || c.score() > score || (c.score() == score && touched[t] < at))) {
                    at = touched[t];
                    slot = t;
                    score = c.score();
                    chosen = c.cards();
                }
            }
            Best b = best[s];
            for (int j = 0; j < b.size; j++) {
                int i = b.index[j];
                if (indexOf(touched, size, i) >= 0) {
                    continue;
                }
                if (at < 0 || b.score[j] > score || (b.score[j] == score && i < at)) {
                    at = i;
                    slot = -1;
                    score = b.score[j];
                    chosen = choices[i][s].cards();
                }
                break;
            }
            if (at < 0) {
                continue;
            }
            if (slot >= 0) {
                NodeState old = touchedState[slot];
                double was = touchedMeasure[slot];
                replace(slot, old.with(Placer.placement(drawnAsk, old, chosen)));
                growth += touchedMeasure[slot] - was;
            } else {
                NodeState old = states[at];
                size = touch(size, at, old.with(Placer.placement(drawnAsk, old, chosen)));
                growth += touchedMeasure[size - 1] - measured(at, old);
            }
        }
        return growth;
    }

    /** Adds {@code node} in {@code state} to the rollout's nodes; the new count. */
    private int touch(int size, int node, NodeState state) {
        touched[size] = node;
        replace(size, state);
        return size + 1;
    }

    private void replace(int slot, NodeState state) {
        touchedState[slot] = state;
        touchedMeasure[slot] = lookahead.measure().of(state);
        Arrays.fill(touchedChoice[slot], null);
    }

    private Choice touchedChoice(int slot, int s, Ask ask) {
        Choice c = touchedChoice[slot][s];
        if (c == null) {
            c = choice(touchedState[slot], ask);
            touchedChoice[slot][s] = c;
        }
        return c;
    }

    private Choice choice(NodeState node, Ask ask) {
        return node != null && node.check(ask) == Reason.FITS ? policy.choose(ask, node) : NO_FIT;
    }

    /** The cluster's node at {@code index} as last seen, its measure kept until it changes. */
    private double measured(int index, NodeState node) {
        if (Double.isNaN(measured[index])) {
            measured[index] = lookahead.measure().of(node);
        }
        return measured[index];
    }

    /** Takes in the nodes whose state changed since the last decision, for every shape drawn so far. */
    private void refresh(NodeStates cluster) {
        grow(cluster.size());
        for (int i = 0; i < states.length; i++) {
            NodeState node = i < cluster.size() ? cluster.node(i) : null;
            if (states[i] == node) {
                continue;
            }
            headroom.replace(states[i], node);
            states[i] = node;
            measured[i] = Double.NaN;
            Arrays.fill(choices[i], null);
            for (int s = 0; s < best.length; s++) {
                if (best[s] != null) {
                    best[s].remove(i);
                    Choice c = choice(node, asks.get(s));
                    choices[i][s] = c;
                    if (c != NO_FIT) {
                        best[s].offer(i, c.score());
                    }
                }
            }
        }
    }

    /** Shape {@code s}'s best nodes, rescanned when fewer are known than a rollout may read. */
    private void top(int s) {
        Best b = best[s];
        if (b != null && (b.size >= reads || b.everyFit)) {
            return;
        }
        b = new Best(reads * KEPT_PER_READ);
        Ask ask = asks.get(s);
        for (int i = 0; i < states.length; i++) {
            Choice c = choices[i][s];
            if (c == null) {
                c = choice(states[i], ask);
                choices[i][s] = c;
            }
            if (c != NO_FIT) {
                b.offer(i, c.score());
            }
        }
        best[s] = b;
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

    private void grow(int size) {
        if (states.length < size) {
            int old = states.length;
            states = Arrays.copyOf(states, size);
            choices = Arrays.copyOf(choices, size);
            measured = Arrays.copyOf(measured, size);
            for (int i = old; i < size; i++) {
                choices[i] = new Choice[asks.size()];
                measured[i] = Double.NaN;
            }
        }
    }

    private static int indexOf(int[] a, int size, int v) {
        for (int i = 0; i < size; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        return -1;
    }

    /**
     * One shape's best nodes, best first (the lower index first on equal scores): exactly the first {@code size} of
     * all the nodes it fits, and all of them when {@code everyFit}.
     */
    private static final class Best {
        private final int[] index;
        private final double[] score;
        private int size;
        private boolean everyFit = true;

        Best(int capacity) {
            index = new int[capacity];
            score = new double[capacity];
        }

        void remove(int node) {
            for (int j = 0; j < size; j++) {
                if (index[j] == node) {
                    System.arraycopy(index, j + 1, index, j, size - j - 1);
                    System.arraycopy(score, j + 1, score, j, size - j - 1);
                    size--;
                    return;
                }
            }
        }

        /** Takes in a node not held here, when its place is known: before the last, or anywhere if all are here. */
        void offer(int node, double value) {
            int p = size;
            while (p > 0 && (value > score[p - 1] || (value == score[p - 1] && node < index[p - 1]))) {
                p--;
            }
            if (p == size && !everyFit) {
                return; // nodes not held here may rank before it
            }
            if (size == index.length) {
                everyFit = false;
                if (p == size) {
                    return;
                }
                size--;
            }
            System.arraycopy(index, p, index, p + 1, size - p);
            System.arraycopy(score, p, score, p + 1, size - p);
            index[p] = node;
            score[p] = value;
            size++;
        }
    }
}
