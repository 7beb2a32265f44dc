package io.elasticgpu.node.dra;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.isolation.MpsAccess;
import java.util.List;
import java.util.Optional;

/** What holds a prepared claim's requests to their shares, and lets them go when the claim is unprepared. */
public interface ClaimIsolation {

    /**
     * What a container is given to reach the MPS server that holds one request's share, or nothing where none
     * does.
     *
     * @throws IllegalArgumentException when MPS cannot hold the share (the message says what to change)
     */
    Optional<MpsAccess> isolate(ClaimRef claim, String request, List<Share> shares, int processes);

    void release(ClaimRef claim);

    ClaimIsolation NONE = new ClaimIsolation() {
        @Override
        public Optional<MpsAccess> isolate(ClaimRef claim, String request, List<Share> shares, int processes) {
            return Optional.empty();
        }

        @Override
        public void release(ClaimRef claim) {}
    };
}
