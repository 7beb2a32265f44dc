package io.elasticgpu.node.allocation;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * Which container an {@code Allocate} call is for.
 *
 * @param pod       the pod
 * @param container its container
 * @param certain   true when kubelet's own records leave one possibility (kubelet is part-way through this pod);
 *                  false when several pods wait with the same ask and the oldest was taken
 * @param others    the other containers that could have been meant, oldest first (same resource and count)
 */
public record Match(NodePod pod, NodePod.Container container, boolean certain, List<Others> others) {

    /** Another waiting container with the same ask. */
    public record Others(NodePod pod, NodePod.Container container) {}

    public Match {
        requireNonNull(pod, "pod");
        requireNonNull(container, "container");
        others = List.copyOf(others);
    }

    public ContainerKey key() {
        return pod.key(container);
    }
}
