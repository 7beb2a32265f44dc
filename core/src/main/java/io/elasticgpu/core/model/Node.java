package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * A schedulable machine and its cards. Immutable.
 *
 * @param name      unique in the cluster
 * @param cpuMilli  allocatable CPU in milli-cores
 * @param memoryMib allocatable host memory
 * @param maxPods   how many pods the node admits
 * @param cards     the node's GPUs, {@code cards.get(i).index() == i}
 * @param labels    node labels, carried for policies that read them
 * @param topology  link matrix over {@code cards}
 */
public record Node(
        String name,
        long cpuMilli,
        long memoryMib,
        int maxPods,
        List<Card> cards,
        Map<String, String> labels,
        Topology topology) {

    public Node {
        requireNonNull(name, "name");
        cards = List.copyOf(requireNonNull(cards, "cards"));
        labels = Map.copyOf(requireNonNull(labels, "labels"));
        requireNonNull(topology, "topology");
        if (name.isBlank()) {
            throw new IllegalArgumentException("node: name must not be blank");
        }
        if (cpuMilli < 0 || memoryMib < 0 || maxPods < 0) {
            throw new IllegalArgumentException("node %s: cpuMilli, memoryMib and maxPods must be >= 0, were %d, %d, %d"
                    .formatted(name, cpuMilli, memoryMib, maxPods));
        }
        for (int i = 0; i < cards.size(); i++) {
            if (cards.get(i).index() != i) {
                throw new IllegalArgumentException(
                        "node %s: card at position %d has index %d; indexes must be 0..%d in order"
                                .formatted(name, i, cards.get(i).index(), cards.size() - 1));
            }
        }
        if (topology.size() != cards.size()) {
            throw new IllegalArgumentException("node %s: topology covers %d cards but the node has %d"
                    .formatted(name, topology.size(), cards.size()));
        }
    }

    /** A node whose cards are joined by nothing better than the host, as traces describe them. */
    public static Node of(String name, long cpuMilli, long memoryMib, int maxPods, List<Card> cards) {
        return new Node(
                name, cpuMilli, memoryMib, maxPods, cards, Map.of(), Topology.uniform(cards.size(), Link.UNKNOWN));
    }

    /** The GPU model of the node: that of its first card, or the empty string for a node without cards. */
    public String model() {
        return cards.isEmpty() ? "" : cards.getFirst().model();
    }

    public int cardCount() {
        return cards.size();
    }

    public Node withCards(List<Card> newCards) {
        return new Node(name, cpuMilli, memoryMib, maxPods, newCards, labels, topology);
    }
}
