package io.elasticgpu.core.model;

/**
 * What one placement takes on one card. Immutable.
 *
 * @param card      the card's index on its node
 * @param milli     compute taken, in milli-cards
 * @param memoryMib device memory taken
 */
public record CardShare(int card, int milli, long memoryMib) {
    public CardShare {
        if (card < 0) {
            throw new IllegalArgumentException("card share: card must be >= 0, was %d".formatted(card));
        }
        if (milli < 0 || milli > Card.WHOLE || memoryMib < 0) {
            throw new IllegalArgumentException(
                    "card share on card %d: milli must be 0..%d and memoryMib >= 0, were %d and %d"
                            .formatted(card, Card.WHOLE, milli, memoryMib));
        }
    }
}
