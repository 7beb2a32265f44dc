package io.elasticgpu.e2e.dra;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;

/** The claims the DRA tests ask with. */
public final class DraClaims {

    private DraClaims() {}

    /** Claim {@code name}: one request {@code gpu}, a share of one card of ours with {@code memory}, {@code cores}. */
    public static ResourceClaim share(String name, String memory, String cores) {
        return new ResourceClaimBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNewDevices()
                .addNewRequest()
                .withName("gpu")
                .withNewExactly()
                .withDeviceClassName(DraNames.DRIVER)
                .withNewCapacity()
                .addToRequests(DraNames.MEMORY, new Quantity(memory))
                .addToRequests(DraNames.CORES, new Quantity(cores))
                .endCapacity()
                .endExactly()
                .endRequest()
                .endDevices()
                .endSpec()
                .build();
    }
}
