package io.elasticgpu.simulator.bound;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Node;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Nodes that are alike for placement: the same CPU, memory, pod limit and healthy cards of one model, memory and
 * compute. The bound counts them together: what fits on one fits on each. Immutable.
 *
 * @param count        how many such nodes the cluster has
 * @param cpuMilli     CPU of one node
 * @param memoryMib    host memory of one node
 * @param maxPods      pods one node admits
 * @param cards        healthy cards per node
 * @param model        their model; empty for a node without healthy cards
 * @param computeMilli compute of one card
 */
record NodeKind(int count, long cpuMilli, long memoryMib, int maxPods, int cards, String model, int computeMilli) {

    /** Groups {@code nodes} by kind, in the order each kind first appears. */
    static List<NodeKind> of(List<Node> nodes) {
        Map<NodeKind, Integer> counts = new LinkedHashMap<>();
        for (Node node : nodes) {
            List<Card> healthy = node.cards().stream().filter(Card::healthy).toList();
            for (Card card : healthy) {
                Card first = healthy.getFirst();
                if (!card.model().equals(first.model()) || card.computeMilli() != first.computeMilli()) {
                    throw new IllegalArgumentException(("the bound needs the healthy cards of a node to be alike;"
                                    + " node %s has %s (%d milli) and %s (%d milli)")
                            .formatted(
                                    node.name(),
                                    first.model(),
                                    first.computeMilli(),
                                    card.model(),
                                    card.computeMilli()));
                }
            }
            NodeKind kind = new NodeKind(
                    1,
                    node.cpuMilli(),
                    node.memoryMib(),
                    node.maxPods(),
                    healthy.size(),
                    healthy.isEmpty() ? "" : healthy.getFirst().model(),
                    healthy.isEmpty() ? 0 : healthy.getFirst().computeMilli());
            counts.merge(kind, 1, Integer::sum);
        }
        List<NodeKind> kinds = new ArrayList<>();
        counts.forEach((k, n) -> kinds.add(
                new NodeKind(n, k.cpuMilli(), k.memoryMib(), k.maxPods(), k.cards(), k.model(), k.computeMilli())));
        return kinds;
    }

    /**
     * Whether one pod asking {@code ask} could run alone on an empty node of this kind (the same checks as the fit
     * check, on an empty node, card memory left out: the bound relaxes it).
     */
    boolean admits(Ask ask) {
        if (maxPods < 1 || ask.cpuMilli() > cpuMilli || ask.memoryMib() > memoryMib) {
            return false;
        }
        if (!ask.needsCards()) {
            return true;
        }
        return ask.cards() <= cards
                && ask.acceptsModel(model)
                && (ask.wholeCards() ? computeMilli == Card.WHOLE : ask.milliPerCard() <= computeMilli);
    }

    /** The same kind, counted {@code n} times: a kind compares equal to another only with the same count. */
    NodeKind withCount(int n) {
        return new NodeKind(n, cpuMilli, memoryMib, maxPods, cards, model, computeMilli);
    }

    long cardsTotal() {
        return (long) count * cards;
    }
}
