package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;

/**
 * The card-to-card link matrix of one node. Immutable and symmetric; the diagonal is unused.
 */
public final class Topology {

    private final int size;
    private final Link[] links; // row-major size x size
    private final int[] ranks; // Link.rank() of each pair, kept for the hot path of multi-card choice

    private Topology(int size, Link[] links) {
        this.size = size;
        this.links = links;
        this.ranks = new int[links.length];
        for (int i = 0; i < links.length; i++) {
            ranks[i] = links[i].rank();
        }
    }

    /** Every pair of the {@code cards} cards joined by the same link. */
    public static Topology uniform(int cards, Link link) {
        requireNonNull(link, "link");
        if (cards < 0) {
            throw new IllegalArgumentException("topology: cards must be >= 0, was %d".formatted(cards));
        }
        Link[] all = new Link[cards * cards];
        Arrays.fill(all, link);
        return new Topology(cards, all);
    }

    /** A builder starting from {@link Link#UNKNOWN} between every pair. */
    public static Builder builder(int cards) {
        return new Builder(cards);
    }

    public int size() {
        return size;
    }

    public Link between(int a, int b) {
        check(a);
        check(b);
        return links[a * size + b];
    }

    /** {@link Link#rank()} of the link between two cards, without allocation. */
    public int rank(int a, int b) {
        return ranks[a * size + b];
    }

    /** The lowest {@link Link#rank()} among the pairs of {@code cards}: their weakest link; 0 for one card. */
    public int weakestRank(int[] cards) {
        int weakest = cards.length < 2 ? 0 : Integer.MAX_VALUE;
        for (int a = 0; a < cards.length; a++) {
            for (int b = a + 1; b < cards.length; b++) {
                weakest = Math.min(weakest, rank(cards[a], cards[b]));
            }
        }
        return weakest;
    }

    private void check(int card) {
        if (card < 0 || card >= size) {
            throw new IndexOutOfBoundsException("topology of %d cards has no card %d".formatted(size, card));
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Topology t && t.size == size && Arrays.equals(t.links, links);
    }

    @Override
    public int hashCode() {
        return 31 * size + Arrays.hashCode(links);
    }

    @Override
    public String toString() {
        return "Topology[" + size + " cards]";
    }

    /** Sets links pair by pair; each call sets both directions. */
    public static final class Builder {
        private final int size;
        private final Link[] links;

        private Builder(int size) {
            if (size < 0) {
                throw new IllegalArgumentException("topology: cards must be >= 0, was %d".formatted(size));
            }
            this.size = size;
            this.links = new Link[size * size];
            Arrays.fill(links, Link.UNKNOWN);
        }

        public Builder link(int a, int b, Link link) {
            requireNonNull(link, "link");
            if (a == b || a < 0 || b < 0 || a >= size || b >= size) {
                throw new IllegalArgumentException(
                        "topology: cannot link card %d to card %d on a node of %d cards".formatted(a, b, size));
            }
            links[a * size + b] = link;
            links[b * size + a] = link;
            return this;
        }

        public Topology build() {
            return new Topology(size, links.clone());
        }
    }
}
