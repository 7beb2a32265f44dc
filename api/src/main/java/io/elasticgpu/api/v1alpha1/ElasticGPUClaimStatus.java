package io.elasticgpu.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** Where an {@link ElasticGPUClaim} stands; written by the controller through the status subresource. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ElasticGPUClaimStatus {

    /** Pending until bound; Lost when its ElasticGPU went away. */
    public enum Phase {
        Pending,
        Bound,
        Lost
    }

    private Phase phase;
    private String elasticGPUName;

    public Phase getPhase() {
        return phase;
    }

    public void setPhase(Phase phase) {
        this.phase = phase;
    }

    /** The {@link ElasticGPU} this claim is bound to, once Bound. */
    public String getElasticGPUName() {
        return elasticGPUName;
    }

    public void setElasticGPUName(String elasticGPUName) {
        this.elasticGPUName = elasticGPUName;
    }
}
