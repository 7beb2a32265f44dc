package io.elasticgpu.scheduler.cache;

import java.util.List;

/**
 * A pod that asks no GPU by resource name: its scheduler, its node (null while pending), what it asks, and the
 * ResourceClaims it uses, as namespace/name (those of ours make it a GPU pod of the DRA path).
 */
public record HostPod(String scheduler, String node, long cpuMilli, long memoryMib, List<String> claims) {
    public HostPod {
        claims = List.copyOf(claims);
    }

    /** How the cache names a pod or a claim, and {@link #claims} a claim: namespace/name. */
    public static String key(String namespace, String name) {
        return namespace + "/" + name;
    }
}
