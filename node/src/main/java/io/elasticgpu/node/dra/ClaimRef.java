package io.elasticgpu.node.dra;

import static java.util.Objects.requireNonNull;

/** A ResourceClaim as kubelet names it: the UID is its identity, namespace and name find it in the API. Immutable. */
public record ClaimRef(String namespace, String name, String uid) {

    public ClaimRef {
        requireNonNull(namespace, "namespace");
        requireNonNull(name, "name");
        requireNonNull(uid, "uid");
        if (uid.isBlank()) {
            throw new IllegalArgumentException(
                    "claim %s/%s: uid is empty; kubelet always sends one".formatted(namespace, name));
        }
    }

    @Override
    public String toString() {
        return namespace + "/" + name + " (" + uid + ")";
    }
}
