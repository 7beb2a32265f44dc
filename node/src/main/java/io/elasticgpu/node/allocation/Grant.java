package io.elasticgpu.node.allocation;

import io.elasticgpu.api.v1alpha1.Allocation.Share;
import io.elasticgpu.api.v1alpha1.GpuAsk.Family;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What one container gets for one {@code Allocate} call: its cards and the share on each. Immutable.
 *
 * @param container the container kubelet is admitting, as the agent identified it
 * @param shares    one per card; a whole card shows its full memory and 1000 milli
 * @param family    the resource names the container used, so the environment speaks its language
 * @param note      how an ambiguity was resolved, or empty
 */
public record Grant(ContainerKey container, List<Share> shares, Family family, String note) {

    public Grant {
        requireNonNull(container, "container");
        shares = List.copyOf(shares);
        requireNonNull(family, "family");
        requireNonNull(note, "note");
        if (shares.isEmpty()) {
            throw new IllegalArgumentException("grant for %s: no cards".formatted(container));
        }
    }
}
