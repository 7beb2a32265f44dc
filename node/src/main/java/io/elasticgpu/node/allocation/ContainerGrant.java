package io.elasticgpu.node.allocation;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import java.util.List;

/**
 * What one container gets for one {@code Allocate} call: its cards and the share on each. Immutable.
 *
 * @param container the container kubelet is admitting, as the agent identified it
 * @param shares    one per card; a whole card shows its full memory and 1000 milli
 * @param family    the resource names the container used, so the environment speaks its language
 * @param note      how an ambiguity was resolved, or empty
 * @param answerId   names the answer this grant belongs to, the same for every resource of the container and after
 *                  the agent learns which container kubelet really admitted: the first call's resource and smallest
 *                  device id, which kubelet's records keep while the container lives; empty for a grant no call of
 *                  this agent answered
 */
public record ContainerGrant(ContainerKey container, List<Share> shares, Family family, String note, String answerId) {

    public ContainerGrant {
        requireNonNull(container, "container");
        shares = List.copyOf(shares);
        requireNonNull(family, "family");
        requireNonNull(note, "note");
        requireNonNull(answerId, "answerId");
        if (shares.isEmpty()) {
            throw new IllegalArgumentException("grant for %s: no cards".formatted(container));
        }
    }

    /** A grant outside any answer of this agent (read back from a pod's annotation). */
    public ContainerGrant(ContainerKey container, List<Share> shares, Family family, String note) {
        this(container, shares, family, note, "");
    }

    /** The {@link #answerId} of an answer whose first call was for {@code ids} of {@code resource}. */
    public static String answerId(String resource, List<String> ids) {
        return resource + " " + java.util.Collections.min(ids);
    }

    /** The same grant for another container or with other shares, in the same answer. */
    ContainerGrant moved(ContainerKey to, List<Share> newShares, String newNote) {
        return new ContainerGrant(to, newShares, family, newNote, answerId);
    }
}
