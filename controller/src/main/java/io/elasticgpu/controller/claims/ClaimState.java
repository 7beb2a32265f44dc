package io.elasticgpu.controller.claims;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaimStatus;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimStatus.Phase;
import java.util.Objects;

/** The status a claim should have: a phase and, when Bound or Lost, the ElasticGPU. */
public record ClaimState(Phase phase, String elasticGpuName) {

    public static final ClaimState PENDING = new ClaimState(Phase.Pending, null);

    public ClaimState {
        requireNonNull(phase, "phase");
        if (phase == Phase.Pending && elasticGpuName != null) {
            throw new IllegalArgumentException("a Pending claim names no ElasticGPU, was " + elasticGpuName);
        }
    }

    public static ClaimState bound(String elasticGpuName) {
        return new ClaimState(Phase.Bound, requireNonNull(elasticGpuName, "elasticGpuName"));
    }

    public static ClaimState lost(String elasticGpuName) {
        return new ClaimState(Phase.Lost, requireNonNull(elasticGpuName, "elasticGpuName"));
    }

    /** What a claim's status says now; a claim without status counts as having none (so it is written Pending). */
    public static ClaimState of(ElasticGPUClaimStatus status) {
        if (status == null || status.getPhase() == null) {
            return null;
        }
        return new ClaimState(
                status.getPhase(), status.getPhase() == Phase.Pending ? null : status.getElasticGPUName());
    }

    public boolean sameAs(ElasticGPUClaimStatus status) {
        return equals(of(status));
    }

    public ElasticGPUClaimStatus toStatus() {
        ElasticGPUClaimStatus status = new ElasticGPUClaimStatus();
        status.setPhase(phase);
        status.setElasticGPUName(elasticGpuName);
        return status;
    }

    @Override
    public String toString() {
        return Objects.requireNonNullElse(elasticGpuName, "-") + " " + phase;
    }
}
