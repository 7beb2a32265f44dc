package io.elasticgpu.node.kubelet;

import java.util.List;
import java.util.Map;

/**
 * The device manager's {@code GetCapacity()}, which kubelet copies into the node's status: devices by resource (all,
 * and healthy ones), and resources whose plugin has been gone past the grace period.
 */
public record Capacity(Map<String, Long> capacity, Map<String, Long> allocatable, List<String> deleted) {

    public Capacity {
        capacity = capacity == null ? Map.of() : Map.copyOf(capacity);
        allocatable = allocatable == null ? Map.of() : Map.copyOf(allocatable);
        deleted = deleted == null ? List.of() : List.copyOf(deleted);
    }

    /** Devices of {@code resource} the node reports; 0 for a resource it does not know. */
    public long capacity(String resource) {
        return capacity.getOrDefault(resource, 0L);
    }

    /** Healthy devices of {@code resource}; 0 for a resource it does not know. */
    public long allocatable(String resource) {
        return allocatable.getOrDefault(resource, 0L);
    }
}
