package io.elasticgpu.node.dra;

/** Where a claim's allocation on this node is read from: the API server in production, a fake in tests. */
public interface ClaimSource {

    /**
     * The devices of this node's pool that {@code claim} was allocated, with the capacity each consumes.
     *
     * @throws ClaimException when the claim is gone, has another UID, is not allocated, or names no device of ours
     *                        on this node (the message says which)
     */
    AllocatedClaim allocated(ClaimRef claim);
}
