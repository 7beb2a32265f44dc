package io.elasticgpu.core.placement;

import java.util.Arrays;
import java.util.function.IntPredicate;

/**
 * The few best of many positions, best first, without sorting them all: the candidates a look-ahead rolls out, in
 * the simulator's placer and in the extender's deciding filter alike. Pure.
 */
public final class BestPositions {

    /** A strict ranking of positions: whether {@code a} ranks before {@code b}. On a tie neither is before. */
    @FunctionalInterface
    public interface Before {
        boolean test(int a, int b);
    }

    private BestPositions() {}

    /**
     * Up to {@code k} of the positions {@code 0..n-1} that are {@code eligible}, best first by {@code before}; of
     * positions that tie, the earlier one comes first.
     */
    public static int[] of(int n, int k, IntPredicate eligible, Before before) {
        int[] top = new int[Math.max(0, Math.min(n, k))];
        int count = 0;
        for (int i = 0; i < n && top.length > 0; i++) {
            if (!eligible.test(i) || (count == top.length && !before.test(i, top[count - 1]))) {
                continue;
            }
            int p = count < top.length ? count++ : count - 1;
            while (p > 0 && before.test(i, top[p - 1])) {
                top[p] = top[p - 1];
                p--;
            }
            top[p] = i;
        }
        return count == top.length ? top : Arrays.copyOf(top, count);
    }
}
