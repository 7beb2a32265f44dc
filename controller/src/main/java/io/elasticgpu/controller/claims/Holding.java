package io.elasticgpu.controller.claims;

import static java.util.Objects.requireNonNull;

/**
 * An ElasticGPU that is held for a claim: its name, the claim (and the claim's uid when known) and the card.
 * Released ElasticGPUs (their pod gone, kept by a {@code Retain} class) are not holdings.
 */
public record Holding(String elasticGpuName, ClaimKey claim, String claimUid, String node, int card) {

    public Holding {
        requireNonNull(elasticGpuName, "elasticGpuName");
        requireNonNull(claim, "claim");
        requireNonNull(node, "node");
    }
}
