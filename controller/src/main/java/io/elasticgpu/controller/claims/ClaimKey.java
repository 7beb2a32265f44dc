package io.elasticgpu.controller.claims;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;

/** A claim's namespace and name; sorts by both. */
public record ClaimKey(String namespace, String name) implements Comparable<ClaimKey> {

    public ClaimKey {
        requireNonNull(namespace, "namespace");
        requireNonNull(name, "name");
    }

    public static ClaimKey of(ElasticGPUClaim claim) {
        return new ClaimKey(
                claim.getMetadata().getNamespace(), claim.getMetadata().getName());
    }

    @Override
    public int compareTo(ClaimKey other) {
        int byNamespace = namespace.compareTo(other.namespace);
        return byNamespace != 0 ? byNamespace : name.compareTo(other.name);
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
