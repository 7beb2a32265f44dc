package io.elasticgpu.node.allocation;

import io.elasticgpu.core.model.Topology;
import io.elasticgpu.core.policy.CardChoice;

import java.util.Arrays;
import java.util.List;

/**
 * Picks {@code k} of the offered cards with the best links between them: the highest weakest link first (an NVLink
 * island beats a set split over PCIe), then the highest sum of links, then the least load, then the lowest indexes
 * (seed 000's "least-loaded card first, then its best-linked peers", made exhaustive). Nodes have at most 16 cards,
 * so every set is tried. Pure.
 */
public final class LinkedCards {

    private LinkedCards() {
    }

    /**
     * @param offered the cards that may be taken
     * @param load    containers on each card of the node (index = card)
     * @throws IllegalArgumentException when fewer than {@code k} are offered
     */
    public static int[] choose(List<Integer> offered, int k, Topology topology, int[] load) {
        if (offered.size() < k) {
            throw new IllegalArgumentException("%d cards wanted, %d offered: %s".formatted(k, offered.size(), offered));
        }
        int[] c = offered.stream().mapToInt(Integer::intValue).sorted().toArray();
        int[] pick = new int[k];
        for (int i = 0; i < k; i++) {
            pick[i] = i;
        }
        int[] best = null;
        long[] bestQuality = null;
        do {
            int[] set = new int[k];
            for (int i = 0; i < k; i++) {
                set[i] = c[pick[i]];
            }
            long[] q = quality(set, topology, load);
            if (best == null || Arrays.compare(q, bestQuality) > 0) {
                best = set;
                bestQuality = q;
            }
        } while (CardChoice.nextCombination(pick, c.length));
        return best;
    }

    private static long[] quality(int[] set, Topology t, int[] load) {
        long weakest = set.length > 1 ? Long.MAX_VALUE : 0;
        long sum = 0;
        long used = 0;
        for (int a = 0; a < set.length; a++) {
            used += load[set[a]];
            for (int b = a + 1; b < set.length; b++) {
                int r = t.rank(set[a], set[b]);
                weakest = Math.min(weakest, r);
                sum += r;
            }
        }
        return new long[] {weakest, sum, -used};
    }
}
