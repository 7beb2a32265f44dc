package io.elasticgpu.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** Where an {@link ElasticGPU} stands; written by the controller through the status subresource. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ElasticGPUStatus {

    /** Available to bind, Bound to a claim, Released by its deleted claim, or Failed to reclaim. */
    public enum Phase {
        Available,
        Bound,
        Released,
        Failed
    }

    private Phase phase;

    public Phase getPhase() {
        return phase;
    }

    public void setPhase(Phase phase) {
        this.phase = phase;
    }
}
