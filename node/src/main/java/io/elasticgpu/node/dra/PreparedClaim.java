package io.elasticgpu.node.dra;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A claim prepared on this node: its devices as kubelet was told them, and the CDI spec written for it (kept so that
 * a spec lost with a tmpfs {@code /var/run} is written again, the same, on the next prepare). Immutable.
 */
public record PreparedClaim(ClaimRef claim, List<PreparedDevice> devices, String cdiSpec) {

    public PreparedClaim {
        requireNonNull(claim, "claim");
        devices = List.copyOf(requireNonNull(devices, "devices"));
        requireNonNull(cdiSpec, "cdiSpec");
    }
}
