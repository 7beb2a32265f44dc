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

    /**
     * The claims that pods on this node hold now: every claim that a pod bound here and not ended uses (named, made
     * from a template, or made by kube-scheduler for an extended resource), reserved for that pod and allocated
     * devices of this node's pool. kubelet prepares exactly these, so they are what a restarted agent whose checkpoint
     * is gone takes as prepared ({@link ClaimPreparation#rebuild}).
     *
     * A source that reads one claim at a time only (a test's) answers none.
     *
     * @throws ClaimException when they cannot be read (the message says what failed)
     */
    default java.util.List<ClaimRef> held() {
        return java.util.List.of();
    }
}
