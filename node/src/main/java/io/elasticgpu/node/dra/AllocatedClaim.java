package io.elasticgpu.node.dra;

import java.util.List;

/**
 * What a claim holds on this node, as read at prepare time. Immutable.
 *
 * @param devices   the devices of our pool it was allocated
 * @param processes how many CUDA processes share it ({@link io.elasticgpu.api.v1alpha1.MpsLimits#PROCESSES_ANNOTATION}
 *                  on the claim, which a ResourceClaimTemplate's metadata gives the claims made from it), or the
 *                  annotation's value as written when it is not a valid count
 */
public record AllocatedClaim(List<ClaimDevice> devices, String processes) {

    public AllocatedClaim {
        devices = List.copyOf(devices);
    }

    /** A claim that declares no process count. */
    public static AllocatedClaim of(List<ClaimDevice> devices) {
        return new AllocatedClaim(devices, "1");
    }
}
