package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where one request goes: a node and the share taken on each chosen card. Immutable.
 *
 * @param node    the node's name
 * @param request what was placed
 * @param shares  one entry per card, on distinct cards, exactly {@code request.cards()} of them
 */
public record Grant(String node, Ask request, List<CardShare> shares) {

    public Grant {
        requireNonNull(node, "node");
        requireNonNull(request, "request");
        shares = List.copyOf(requireNonNull(shares, "shares"));
        if (shares.size() != request.cards()) {
            throw new IllegalArgumentException("placement on %s: request asks %d cards but %d were chosen"
                    .formatted(node, request.cards(), shares.size()));
        }
        Set<Integer> seen = new HashSet<>();
        for (CardShare share : shares) {
            if (!seen.add(share.card())) {
                throw new IllegalArgumentException(
                        "placement on %s: card %d chosen twice".formatted(node, share.card()));
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
