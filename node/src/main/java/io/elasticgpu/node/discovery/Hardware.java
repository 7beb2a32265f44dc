package io.elasticgpu.node.discovery;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Topology;
import java.util.List;

/**
 * What discovery found on this node. Immutable.
 *
 * @param driverVersion the NVIDIA driver version, e.g. {@code 570.86.15}
 * @param gpus          every card, {@code gpus.get(i).index() == i}
 * @param topology      the links between them (NVLink lanes, or the closest common PCIe ancestor)
 */
public record Hardware(String driverVersion, List<Gpu> gpus, Topology topology) {

    public Hardware {
        requireNonNull(driverVersion, "driverVersion");
        gpus = List.copyOf(requireNonNull(gpus, "gpus"));
        requireNonNull(topology, "topology");
        for (int i = 0; i < gpus.size(); i++) {
            if (gpus.get(i).index() != i) {
                throw new IllegalArgumentException(
                        "hardware: gpu at position %d has index %d; indexes must be 0..%d in order"
                                .formatted(i, gpus.get(i).index(), gpus.size() - 1));
            }
        }
        if (topology.size() != gpus.size()) {
            throw new IllegalArgumentException(
                    "hardware: topology covers %d cards, %d gpus found".formatted(topology.size(), gpus.size()));
        }
    }
}
