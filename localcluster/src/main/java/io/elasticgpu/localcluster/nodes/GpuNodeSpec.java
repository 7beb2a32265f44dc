package io.elasticgpu.localcluster.nodes;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.NodeInventory;
import java.util.ArrayList;
import java.util.List;

/**
 * A fake GPU node: its cards (all of one model), host resources and the links between cards. Immutable.
 *
 * @param links the links better than across-sockets, as the inventory lists them
 */
public record GpuNodeSpec(
        String name,
        int cards,
        String model,
        long cardMemoryMib,
        long cpuMilli,
        long memoryMib,
        List<NodeInventory.Link> links) {

    public GpuNodeSpec {
        requireNonNull(name, "name");
        requireNonNull(model, "model");
        links = List.copyOf(links);
        if (cards < 1 || cards > 16) {
            throw new IllegalArgumentException("fake node %s: cards must be 1..16, was %d".formatted(name, cards));
        }
    }

    /** {@code cards} cards of {@code model}, 16 cores and 128 GiB of host memory per card, no NVLink. */
    public static GpuNodeSpec of(String name, int cards, String model, long cardMemoryMib) {
        return new GpuNodeSpec(name, cards, model, cardMemoryMib, 16_000L * cards, 131_072L * cards, List.of());
    }

    /** The same node with its cards in NVLink islands of {@code size} (every pair inside an island linked). */
    public GpuNodeSpec withNvlinkIslands(int size, int lanes) {
        List<NodeInventory.Link> islands = new ArrayList<>();
        for (int start = 0; start < cards; start += size) {
            for (int a = start; a < Math.min(cards, start + size); a++) {
                for (int b = a + 1; b < Math.min(cards, start + size); b++) {
                    islands.add(new NodeInventory.Link(a, b, "NVLINK", lanes));
                }
            }
        }
        return new GpuNodeSpec(name, cards, model, cardMemoryMib, cpuMilli, memoryMib, islands);
    }

    /** The inventory the node agent would publish for this node: healthy cards, NUMA by halves. */
    public NodeInventory inventory() {
        List<NodeInventory.Card> list = new ArrayList<>();
        for (int i = 0; i < cards; i++) {
            list.add(new NodeInventory.Card(
                    i, AllocatedPods.uuid(name, i), model, cardMemoryMib, true, i < (cards + 1) / 2 ? 0 : 1));
        }
        return new NodeInventory(list, links);
    }

    /**
     * {@code count} nodes named {@code <prefix>-NN} in a repeating mix: 8-card A100 nodes with two NVLink islands,
     * 4-card V100 nodes in NVLink pairs, 2-card T4 nodes; their models as NVML names them.
     */
    public static List<GpuNodeSpec> mixed(String prefix, int count) {
        List<GpuNodeSpec> specs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String name = "%s-%02d".formatted(prefix, i);
            specs.add(
                    switch (i % 3) {
                        case 0 -> of(name, 8, "NVIDIA A100-SXM4-80GB", 81_920).withNvlinkIslands(4, 12);
                        case 1 -> of(name, 4, "Tesla V100-SXM2-32GB", 32_768).withNvlinkIslands(2, 2);
                        default -> of(name, 2, "Tesla T4", 15_360);
                    });
        }
        return specs;
    }
}
