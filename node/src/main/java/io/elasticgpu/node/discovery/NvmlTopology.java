package io.elasticgpu.node.discovery;

import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.LinkKind;
import io.elasticgpu.core.model.Topology;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Reads the link matrix of a node from NVML: NVLink where cards have active links to each other (directly or through
 * shared NVSwitches), otherwise the PCIe level of their closest common ancestor, as {@code nvidia-smi topo -m} shows.
 */
final class NvmlTopology {

    // nvmlGpuTopologyLevel_t
    static final int INTERNAL = 0;
    static final int SINGLE = 10;
    static final int MULTIPLE = 20;
    static final int HOSTBRIDGE = 30;
    static final int NODE = 40;
    static final int SYSTEM = 50;

    private NvmlTopology() {}

    /** @param slots {@code slots.get(i)} is where {@code cards.get(i)} sits on the PCI bus */
    static Topology read(Nvml nvml, List<Nvml.Device> cards, List<Nvml.Pci> slots) {
        List<List<Nvml.NvLink>> links = cards.stream().map(nvml::activeNvLinks).toList();
        Topology.Builder topology = Topology.builder(cards.size());
        for (int a = 0; a < cards.size(); a++) {
            for (int b = a + 1; b < cards.size(); b++) {
                int lanes = lanes(links.get(a), links.get(b), slots.get(a), slots.get(b));
                topology.link(
                        a, b, lanes > 0 ? Link.nvlink(lanes) : pcie(nvml.commonAncestor(cards.get(a), cards.get(b))));
            }
        }
        return topology.build();
    }

    /**
     * Direct links are those of {@code a} whose far end is {@code b}. Behind NVSwitches (HGX boards) every card reaches
     * every card on the switches they share with all its links to them, so the lanes are the smaller of the two
     * cards' counts, which is the {@code NV#} nvidia-smi prints for such a pair.
     */
    static int lanes(List<Nvml.NvLink> a, List<Nvml.NvLink> b, Nvml.Pci slotA, Nvml.Pci slotB) {
        int direct = (int) a.stream()
                .filter(l -> !l.toSwitch() && l.remote().slot().equals(slotB.slot()))
                .count();
        Set<String> shared = switches(a);
        shared.retainAll(switches(b));
        return direct + Math.min(linksTo(a, shared), linksTo(b, shared));
    }

    /** SINGLE/MULTIPLE are PCIe switches (PIX/PXB); INTERNAL is two GPUs on one board, behind its own switch. */
    static Link pcie(OptionalInt level) {
        if (level.isEmpty()) {
            return Link.UNKNOWN;
        }
        return switch (level.getAsInt()) {
            case INTERNAL, SINGLE, MULTIPLE -> Link.of(LinkKind.PCIE_SWITCH);
            case HOSTBRIDGE -> Link.of(LinkKind.HOST_BRIDGE);
            case NODE -> Link.of(LinkKind.NUMA_NODE);
            default -> Link.of(LinkKind.CROSS_SOCKET); // SYSTEM, and any level newer than this list: assume the worst
        };
    }

    private static Set<String> switches(List<Nvml.NvLink> links) {
        Set<String> switches = new HashSet<>();
        links.stream()
                .filter(Nvml.NvLink::toSwitch)
                .forEach(l -> switches.add(l.remote().slot()));
        return switches;
    }

    private static int linksTo(List<Nvml.NvLink> links, Set<String> switches) {
        return (int) links.stream()
                .filter(l -> l.toSwitch() && switches.contains(l.remote().slot()))
                .count();
    }
}
