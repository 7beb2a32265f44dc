package io.elasticgpu.core.policy;

import java.util.Arrays;

/**
 * A policy's verdict on one node that fits: its score (higher is better) and the cards it would take there.
 * Immutable.
 */
public record Choice(double score, int[] cards) {

    public Choice {
        cards = cards.clone();
    }

    @Override
    public int[] cards() {
        return cards.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Choice c && Double.compare(c.score, score) == 0 && Arrays.equals(c.cards, cards);
    }

    @Override
    public int hashCode() {
        return Double.hashCode(score) * 31 + Arrays.hashCode(cards);
    }

    @Override
    public String toString() {
        return "Choice[score=" + score + ", cards=" + Arrays.toString(cards) + "]";
    }
}
