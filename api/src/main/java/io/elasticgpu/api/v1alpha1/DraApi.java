package io.elasticgpu.api.v1alpha1;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/** Whether the API server serves DRA's {@code resource.k8s.io/v1} (Kubernetes 1.34 and later). */
public final class DraApi {

    private DraApi() {}

    /** False also when discovery fails: the views then count pods' allocations only, as before DRA. */
    public static boolean served(KubernetesClient client) {
        try {
            return client.supports(ResourceClaim.class);
        } catch (KubernetesClientException e) {
            return false;
        }
    }
}
