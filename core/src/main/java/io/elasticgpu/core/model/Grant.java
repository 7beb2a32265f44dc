package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where one ask goes: a node and the share taken on each chosen card. Immutable.
 *
 * @param node   the node's name
 * @param ask    what was granted
 * @param shares one entry per card, on distinct cards, exactly {@code ask.cards()} of them
 */
public record Grant(String node, Ask ask, List<CardShare> shares) {

    public Grant {
        requireNonNull(node, "node");
        requireNonNull(ask, "ask");
        shares = List.copyOf(requireNonNull(shares, "shares"));
        if (shares.size() != ask.cards()) {
            throw new IllegalArgumentException("grant on %s: the ask is for %d cards but %d were chosen"
                    .formatted(node, ask.cards(), shares.size()));
        }
        Set<Integer> seen = new HashSet<>();
        for (CardShare share : shares) {
            if (!seen.add(share.card())) {
                throw new IllegalArgumentException("grant on %s: card %d chosen twice".formatted(node, share.card()));
            }
        }
    }

    /** The chosen card indexes, in the order chosen. */
    public int[] cardIndexes() {
        return shares.stream().mapToInt(CardShare::card).toArray();
    }

    public long totalMilli() {
        return shares.stream().mapToLong(CardShare::milli).sum();
    }
}
