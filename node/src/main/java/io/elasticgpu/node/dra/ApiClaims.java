package io.elasticgpu.node.dra;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.node.discovery.Hardware;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads claims from the API server and turns their allocation into {@link ClaimDevice}s: the results of our driver
 * on this node's pool, with the consumed capacity (a result without it, from a device that allows one allocation,
 * holds the whole card). The claim is read at prepare time because kubelet sends only its name and UID.
 */
public final class ApiClaims implements ClaimSource {

    private static final BigDecimal MIB = BigDecimal.valueOf(1024L * 1024);

    private final KubernetesClient client;
    private final String pool;
    private final Hardware hardware;

    public ApiClaims(KubernetesClient client, String pool, Hardware hardware) {
        this.client = client;
        this.pool = pool;
        this.hardware = hardware;
    }

    @Override
    public List<ClaimDevice> allocated(ClaimRef ref) {
        ResourceClaim claim;
        try {
            claim = client.resources(ResourceClaim.class).inNamespace(ref.namespace()).withName(ref.name()).get();
        } catch (KubernetesClientException e) {
            throw new ClaimException("claim %s: cannot read it from the API server: %s".formatted(ref, e.getMessage()));
        }
        return devices(ref, claim, pool, hardware);
    }

    /** The devices {@code claim} holds in {@code pool}. Pure. */
    static List<ClaimDevice> devices(ClaimRef ref, ResourceClaim claim, String pool, Hardware hw) {
        if (claim == null || !ref.uid().equals(claim.getMetadata().getUid())) {
            throw new ClaimException("claim %s: not found (deleted, or re-created with another UID)".formatted(ref));
        }
        if (claim.getStatus() == null || claim.getStatus().getAllocation() == null
                || claim.getStatus().getAllocation().getDevices() == null) {
            throw new ClaimException("claim %s: not allocated; kube-scheduler allocates it when it schedules the pod".formatted(ref));
        }
        List<ClaimDevice> out = new ArrayList<>();
        for (DeviceRequestAllocationResult r : claim.getStatus().getAllocation().getDevices().getResults()) {
            if (DraNames.DRIVER.equals(r.getDriver()) && pool.equals(r.getPool())) {
                out.add(device(ref, r, hw));
            }
        }
        if (out.isEmpty()) {
            throw new ClaimException("claim %s: its allocation names no device of driver %s in pool %s"
                    .formatted(ref, DraNames.DRIVER, pool));
        }
        return out;
    }

    static ClaimDevice device(ClaimRef ref, DeviceRequestAllocationResult r, Hardware hw) {
        int card = DraNames.cardIndex(r.getDevice());
        if (card < 0 || card >= hw.gpus().size()) {
            throw new ClaimException("claim %s: device %s is not a card of this node (gpu-0..gpu-%d)"
                    .formatted(ref, r.getDevice(), hw.gpus().size() - 1));
        }
        Map<String, Quantity> consumed = r.getConsumedCapacity();
        if (consumed == null || consumed.isEmpty()) {
            return new ClaimDevice(r.getRequest(), r.getDevice(), card, hw.gpus().get(card).memoryMib(), 1000,
                    Optional.ofNullable(r.getShareID()));
        }
        long memoryMib = consumed.containsKey(DraNames.MEMORY)
                ? Quantity.getAmountInBytes(consumed.get(DraNames.MEMORY)).divide(MIB, 0, RoundingMode.CEILING).longValueExact() : 0;
        int percent = consumed.containsKey(DraNames.CORES)
                ? Quantity.getAmountInBytes(consumed.get(DraNames.CORES)).setScale(0, RoundingMode.CEILING).intValueExact() : 0;
        return new ClaimDevice(r.getRequest(), r.getDevice(), card, memoryMib, percent * 10, Optional.ofNullable(r.getShareID()));
    }
}
