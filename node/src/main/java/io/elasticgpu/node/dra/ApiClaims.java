package io.elasticgpu.node.dra;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.DraShares;
import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.node.discovery.Hardware;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Optional;

/**
 * Reads claims from the API server and turns their allocation into {@link ClaimDevice}s: the results of our driver
 * on this node's pool, with the consumed capacity (a result without it, from a device that allows one allocation,
 * holds the whole card). The claim is read at prepare time because kubelet sends only its name and UID.
 */
public final class ApiClaims implements ClaimSource {

    private final KubernetesClient client;
    private final String pool;
    private final Hardware hardware;

    public ApiClaims(KubernetesClient client, String pool, Hardware hardware) {
        this.client = client;
        this.pool = pool;
        this.hardware = hardware;
    }

    @Override
    public AllocatedClaim allocated(ClaimRef ref) {
        ResourceClaim claim;
        try {
            claim = client.resources(ResourceClaim.class)
                    .inNamespace(ref.namespace())
                    .withName(ref.name())
                    .get();
        } catch (KubernetesClientException e) {
            throw new ClaimException("claim %s: cannot read it from the API server: %s".formatted(ref, e.getMessage()));
        }
        List<ClaimDevice> devices = devices(ref, claim, pool, hardware);
        var annotations = claim.getMetadata().getAnnotations();
        String processes = annotations == null ? null : annotations.get(MpsLimits.PROCESSES_ANNOTATION);
        return new AllocatedClaim(devices, processes == null ? "1" : processes);
    }

    /**
     * The devices {@code claim} holds in {@code pool}, read by the rule the views count with ({@link DraShares}). Pure.
     * */
    static List<ClaimDevice> devices(ClaimRef ref, ResourceClaim claim, String pool, Hardware hw) {
        if (claim == null || !ref.uid().equals(claim.getMetadata().getUid())) {
            throw new ClaimException("claim %s: not found (deleted, or re-created with another UID)".formatted(ref));
        }
        if (!DraShares.allocated(claim)) {
            throw new ClaimException(
                    "claim %s: not allocated; kube-scheduler allocates it when it schedules the pod".formatted(ref));
        }
        List<ClaimDevice> out = DraShares.of(claim).stream()
                .filter(s -> pool.equals(s.node()))
                .map(s -> device(ref, s, hw))
                .toList();
        if (out.isEmpty()) {
            throw new ClaimException("claim %s: its allocation names no device of driver %s in pool %s"
                    .formatted(ref, DraNames.DRIVER, pool));
        }
        return out;
    }

    static ClaimDevice device(ClaimRef ref, DraShares.DraShare s, Hardware hw) {
        if (s.card() < 0 || s.card() >= hw.gpus().size()) {
            throw new ClaimException("claim %s: device %s is not a card of this node (gpu-0..gpu-%d)"
                    .formatted(ref, s.device(), hw.gpus().size() - 1));
        }
        long memoryMib = s.wholeCard() ? hw.gpus().get(s.card()).memoryMib() : s.memoryMib();
        return new ClaimDevice(
                s.request(), s.device(), s.card(), memoryMib, s.milli(), Optional.ofNullable(s.shareId()));
    }
}
