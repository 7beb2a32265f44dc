package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

/**
 * One physical GPU on a node. Immutable.
 *
 * @param index        position on the node, 0-based; the device index a container sees
 * @param id           stable identity, the UUID on real hardware
 * @param model        product name, e.g. {@code V100M32}; requests may restrict themselves to models
 * @param memoryMib    device memory
 * @param computeMilli compute capacity in milli-cards, where {@value #WHOLE} is one whole card
 * @param health       whether new work may land here
 * @param numaNode     host NUMA node the card hangs off, or -1 when unknown
 */
public record Card(int index, String id, String model, long memoryMib, int computeMilli, Health health, int numaNode) {

    /** Compute of one whole card, in milli-cards. */
    public static final int WHOLE = 1000;

    public Card {
        requireNonNull(id, "id");
        requireNonNull(model, "model");
        requireNonNull(health, "health");
        if (index < 0) {
            throw new IllegalArgumentException("card %s: index must be >= 0, was %d".formatted(id, index));
        }
        if (memoryMib < 0) {
            throw new IllegalArgumentException("card %s: memoryMib must be >= 0, was %d".formatted(id, memoryMib));
        }
        if (computeMilli < 1 || computeMilli > WHOLE) {
            throw new IllegalArgumentException(
                    "card %s: computeMilli must be 1..%d, was %d".formatted(id, WHOLE, computeMilli));
        }
        if (numaNode < -1) {
            throw new IllegalArgumentException("card %s: numaNode must be >= -1, was %d".formatted(id, numaNode));
        }
    }

    /** A healthy whole card with no NUMA information, as simulated clusters and traces describe them. */
    public static Card of(int index, String id, String model, long memoryMib) {
        return new Card(index, id, model, memoryMib, WHOLE, Health.HEALTHY, -1);
    }

    public boolean healthy() {
        return health == Health.HEALTHY;
    }

    public Card withHealth(Health newHealth) {
        return new Card(index, id, model, memoryMib, computeMilli, newHealth, numaNode);
    }
}
