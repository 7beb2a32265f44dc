package io.elasticgpu.controller.view;

import io.elasticgpu.api.v1alpha1.NodeInventory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The groups of a node's cards joined by NVLink (directly or through each other); cards without NVLink are left out. */
final class NvlinkIslands {

    private NvlinkIslands() {}

    static List<List<Integer>> of(NodeInventory inventory) {
        int[] parent = new int[inventory.cards().size()];
        for (int i = 0; i < parent.length; i++) {
            parent[i] = i;
        }
        boolean[] linked = new boolean[parent.length];
        for (NodeInventory.Link link : inventory.links()) {
            if (link.kind().equals("NVLINK")) {
                parent[root(parent, link.a())] = root(parent, link.b());
                linked[link.a()] = true;
                linked[link.b()] = true;
            }
        }
        Map<Integer, List<Integer>> islands = new TreeMap<>();
        for (int card = 0; card < parent.length; card++) {
            if (linked[card]) {
                islands.computeIfAbsent(root(parent, card), r -> new ArrayList<>())
                        .add(card);
            }
        }
        return islands.values().stream()
                .sorted((x, y) -> Integer.compare(x.getFirst(), y.getFirst()))
                .toList();
    }

    private static int root(int[] parent, int card) {
        while (parent[card] != card) {
            card = parent[card];
        }
        return card;
    }
}
