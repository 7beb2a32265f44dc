package io.elasticgpu.core.model;

/**
 * The sets of {@code k} of a node's {@code n} cards, walked in lexicographic order, and how many there are: what the
 * card choice and the choice of pods to evict both enumerate.
 */
public final class CardSets {

    private CardSets() {}

    /**
     * Advances {@code pick}, a k-combination of {@code 0..n-1} in increasing order, to the next one in lexicographic
     * order; false after the last.
     */
    public static boolean next(int[] pick, int n) {
        int k = pick.length;
        int i = k - 1;
        while (i >= 0 && pick[i] == n - k + i) {
            i--;
        }
        if (i < 0) {
            return false;
        }
        pick[i]++;
        for (int j = i + 1; j < k; j++) {
            pick[j] = pick[j - 1] + 1;
        }
        return true;
    }

    /** n choose k; once above {@link Integer#MAX_VALUE}, some number above it (the count is not needed then). */
    public static long count(int n, int k) {
        long result = 1;
        for (int i = 1; i <= k; i++) {
            result = result * (n - k + i) / i;
            if (result > Integer.MAX_VALUE) {
                return result;
            }
        }
        return result;
    }
}
