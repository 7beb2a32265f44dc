package io.elasticgpu.controller.view;

import java.util.List;

/**
 * One GPU node. {@code model} is its cards' model ({@code mixed} when they differ); {@code nvlinkIslands} are the
 * groups of cards joined by NVLink, each sorted, the lowest card first; {@code driver} is from the node's label, empty
 * when it has none; {@code freeTflops} sums its healthy cards'.
 */
public record NodeView(
        String name,
        String model,
        String driver,
        List<List<Integer>> nvlinkIslands,
        FreeTflops freeTflops,
        List<CardView> cards) {

    public NodeView {
        nvlinkIslands = nvlinkIslands.stream().map(List::copyOf).toList();
        cards = List.copyOf(cards);
    }
}
