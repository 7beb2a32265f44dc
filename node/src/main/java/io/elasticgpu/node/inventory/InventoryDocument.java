package io.elasticgpu.node.inventory;

import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.LinkKind;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.Mig;
import io.elasticgpu.node.health.CardHealth;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The labels and inventory a node's hardware and health come to. Pure. */
public final class InventoryDocument {

    private InventoryDocument() {}

    public static NodeInventory inventory(Hardware hw, CardHealth health) {
        List<NodeInventory.Card> cards = new ArrayList<>();
        for (Gpu g : hw.gpus()) {
            boolean healthy = health.healthy(g.index());
            cards.add(new NodeInventory.Card(
                    g.index(),
                    g.uuid(),
                    g.model(),
                    g.memoryMib(),
                    healthy,
                    g.numaNode(),
                    healthy ? null : health.reason(g.index()),
                    mig(g.mig())));
        }
        List<NodeInventory.Link> links = new ArrayList<>();
        for (int a = 0; a < cards.size(); a++) {
            for (int b = a + 1; b < cards.size(); b++) {
                Link l = hw.topology().between(a, b);
                if (l.kind() != LinkKind.CROSS_SOCKET) {
                    links.add(new NodeInventory.Link(a, b, l.kind().name(), l.nvlinks()));
                }
            }
        }
        return new NodeInventory(cards, links);
    }

    /** What the inventory says of a card's MIG: nothing for a card whose MIG mode is off and stays so. */
    private static NodeInventory.Mig mig(Mig mig) {
        if (!mig.enabled() && !mig.pending()) {
            return null;
        }
        return new NodeInventory.Mig(
                mig.enabled(),
                mig.pending(),
                mig.devices().stream()
                        .map(d -> new NodeInventory.MigDevice(
                                d.uuid(),
                                d.profile(),
                                d.gpuInstance(),
                                d.computeInstance(),
                                d.start(),
                                d.memorySlices(),
                                d.computeSlices(),
                                d.memoryMib()))
                        .toList());
    }

    /** Labels for node selectors; a node with mixed models is labelled by its first card. */
    public static Map<String, String> labels(Hardware hw) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(NodeLabels.PRESENT, "true");
        labels.put(NodeLabels.COUNT, Integer.toString(hw.gpus().size()));
        labels.put(NodeLabels.DRIVER, NodeLabels.value(hw.driverVersion()));
        if (!hw.gpus().isEmpty()) {
            labels.put(NodeLabels.PRODUCT, NodeLabels.value(hw.gpus().getFirst().model()));
            labels.put(NodeLabels.MEMORY, Long.toString(hw.gpus().getFirst().memoryMib()));
        }
        return labels;
    }
}
