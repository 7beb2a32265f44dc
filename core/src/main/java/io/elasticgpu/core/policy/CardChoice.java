package io.elasticgpu.core.policy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.CardSets;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.Arrays;
import java.util.function.IntToLongFunction;

/**
 * The ways policies pick cards on a node the ask fits. Single-card slices go to the tightest or the roomiest
 * card; everything that takes several cards goes to the best-linked set (NVLink islands first), least loaded among
 * equals, lowest indexes among equals (seed 000's rule, made exhaustive where the node is small enough).
 */
public final class CardChoice {

    /** Above this many candidate sets, {@link #linked} falls back to the greedy rule of seed 000. */
    static final int EXHAUSTIVE_LIMIT = 20_000;

    private CardChoice() {}

    /** Best fit: a one-card slice takes the card with the least room that fits; other requests {@link #linked}. */
    public static int[] tightest(Ask ask, NodeState s) {
        if (!ask.sharesOneCard()) {
            return linked(ask, s);
        }
        int best = -1;
        for (int i = 0; i < s.cardCount(); i++) {
            if (s.cardFits(ask, i) && (best < 0 || s.freeShare(i) < s.freeShare(best))) {
                best = i;
            }
        }
        return single(best, ask, s);
    }

    /** Worst fit: a one-card slice takes the card with the most room; other requests {@link #linked}. */
    public static int[] roomiest(Ask ask, NodeState s) {
        if (!ask.sharesOneCard()) {
            return linked(ask, s);
        }
        int best = -1;
        for (int i = 0; i < s.cardCount(); i++) {
            if (s.cardFits(ask, i) && (best < 0 || s.freeShare(i) > s.freeShare(best))) {
                best = i;
            }
        }
        return single(best, ask, s);
    }

    /**
     * {@code ask.cards()} fitting cards with the best links between them: the highest weakest link first, then the
     * highest sum of links, then the least load, then the lowest indexes.
     */
    public static int[] linked(Ask ask, NodeState s) {
        int[] candidates = s.fittingCards(ask);
        int k = ask.cards();
        if (candidates.length < k) {
            throw new IllegalStateException(
                    "node %s: %d cards fit %s, %d needed".formatted(s.name(), candidates.length, ask, k));
        }
        if (candidates.length == k || allAlike(candidates, s)) {
            return Arrays.copyOf(candidates, k);
        }
        if (CardSets.count(candidates.length, k) <= EXHAUSTIVE_LIMIT) {
            return exhaustive(candidates, k, s);
        }
        return greedy(candidates, k, s);
    }

    private static int[] single(int card, Ask ask, NodeState s) {
        if (card < 0) {
            throw new IllegalStateException("node %s: no card fits %s".formatted(s.name(), ask));
        }
        return new int[] {card};
    }

    /** Every candidate pair equally linked and every candidate equally loaded: any k are as good as the first k. */
    private static boolean allAlike(int[] c, NodeState s) {
        Topology t = s.node().topology();
        int rank = c.length > 1 ? t.rank(c[0], c[1]) : 0;
        for (int a = 0; a < c.length; a++) {
            if (s.freeShare(c[a]) != s.freeShare(c[0])) {
                return false;
            }
            for (int b = a + 1; b < c.length; b++) {
                if (t.rank(c[a], c[b]) != rank) {
                    return false;
                }
            }
        }
        return true;
    }

    private static int[] exhaustive(int[] c, int k, NodeState s) {
        return bestLinked(c, k, s.node().topology(), load(s));
    }

    /**
     * Of {@code candidates} (ascending card indexes), the {@code k} with the best links between them, trying every
     * set: the highest weakest link (an NVLink island beats a set split over PCIe), then the highest sum of links,
     * then the least {@code load}, then the lowest indexes. The one rule for choosing linked cards, used by the
     * placement policies here and by the node agent when kubelet offers it cards.
     *
     * @throws IllegalArgumentException when fewer than {@code k} are offered
     */
    public static int[] bestLinked(int[] candidates, int k, Topology t, IntToLongFunction load) {
        if (candidates.length < k) {
            throw new IllegalArgumentException(
                    "%d cards wanted, %d offered: %s".formatted(k, candidates.length, Arrays.toString(candidates)));
        }
        int[] pick = new int[k];
        for (int i = 0; i < k; i++) {
            pick[i] = i;
        }
        int[] set = new int[k];
        int[] best = null;
        long[] bestQuality = null;
        do {
            for (int i = 0; i < k; i++) {
                set[i] = candidates[pick[i]];
            }
            long[] quality = quality(set, t, load);
            if (best == null || better(quality, bestQuality)) {
                best = set.clone();
                bestQuality = quality;
            }
        } while (CardSets.next(pick, candidates.length));
        return best;
    }

    /** How loaded a card is, for the tie-break: the share of it already taken. */
    private static IntToLongFunction load(NodeState s) {
        return card -> 1000L - s.freeShare(card);
    }

    /**
     * Seed 000's rule, for nodes too large to try every set: from a starting card, repeatedly add the best-linked,
     * least-loaded peer. Every card is tried as the start (seed 000 starts from the least-loaded one only, which
     * misses an NVLink island when all cards are equally loaded) and the best resulting set is kept.
     */
    private static int[] greedy(int[] c, int k, NodeState s) {
        Topology t = s.node().topology();
        int[] best = null;
        long[] bestQuality = null;
        for (int start = 0; start < c.length; start++) {
            int[] set = growFrom(start, c, k, s, t);
            long[] quality = quality(set, t, load(s));
            if (best == null || better(quality, bestQuality)) {
                best = set;
                bestQuality = quality;
            }
        }
        Arrays.sort(best);
        return best;
    }

    private static int[] growFrom(int start, int[] c, int k, NodeState s, Topology t) {
        boolean[] taken = new boolean[c.length];
        int[] out = new int[k];
        taken[start] = true;
        out[0] = c[start];
        for (int n = 1; n < k; n++) {
            int best = -1;
            long bestMin = -1;
            long bestSum = -1;
            for (int i = 0; i < c.length; i++) {
                if (taken[i]) {
                    continue;
                }
                long min = Long.MAX_VALUE;
                long sum = 0;
                for (int j = 0; j < n; j++) {
                    int rank = t.rank(c[i], out[j]);
                    min = Math.min(min, rank);
                    sum += rank;
                }
                if (best < 0
                        || min > bestMin
                        || (min == bestMin
                                && (sum > bestSum || (sum == bestSum && s.freeShare(c[i]) > s.freeShare(c[best]))))) {
                    best = i;
                    bestMin = min;
                    bestSum = sum;
                }
            }
            taken[best] = true;
            out[n] = c[best];
        }
        return out;
    }

    /** (weakest link, sum of links, minus load): larger is better, compared in that order. */
    private static long[] quality(int[] set, Topology t, IntToLongFunction cardLoad) {
        long min = set.length > 1 ? Long.MAX_VALUE : 0;
        long sum = 0;
        long load = 0;
        for (int a = 0; a < set.length; a++) {
            load += cardLoad.applyAsLong(set[a]);
            for (int b = a + 1; b < set.length; b++) {
                int rank = t.rank(set[a], set[b]);
                min = Math.min(min, rank);
                sum += rank;
            }
        }
        return new long[] {min, sum, -load};
    }

    private static boolean better(long[] a, long[] b) {
        return Arrays.compare(a, b) > 0;
    }
}
