package io.elasticgpu.simulator.trace;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Node;
import java.util.List;

/**
 * A cluster and the pods that arrive at it. Immutable.
 *
 * @param name  what reports call it, e.g. {@code openb_pod_list_default}
 * @param nodes the cluster, in name order
 * @param pods  the original pods, in file order
 */
public record Trace(String name, List<Node> nodes, List<TracePod> pods) {
    public Trace {
        requireNonNull(name, "name");
        nodes = List.copyOf(nodes);
        pods = List.copyOf(pods);
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("trace %s has no nodes".formatted(name));
        }
        if (pods.isEmpty()) {
            throw new IllegalArgumentException("trace %s has no pods".formatted(name));
        }
    }

    /** Compute capacity of all cards, in milli-cards. */
    public long capacityMilli() {
        return nodes.stream()
                .flatMap(n -> n.cards().stream())
                .mapToLong(c -> c.computeMilli())
                .sum();
    }
}
