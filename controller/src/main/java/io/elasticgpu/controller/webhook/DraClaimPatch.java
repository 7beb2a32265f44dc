package io.elasticgpu.controller.webhook;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.controller.webhook.ClaimMutation.PatchOperation;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.ResourceClaim;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JSON patch that makes a pod use, through DRA, the ElasticGPUClaims of classes with {@code api: dra}: a pod claim
 * {@code egpuc-<claim>} made from the ResourceClaimTemplate of that name (which the controller makes from the claim),
 * and the container's {@code resources.claims} naming it. Each operation writes a whole list ("add" on an existing
 * member replaces it, RFC 6902 4.1), the pod's own entries kept, so it holds whether or not the list was there.
 */
final class DraClaimPatch {

    private DraClaimPatch() {}

    /** The container's {@code resources.claims}, with the pod claim of ElasticGPUClaim {@code claim} added. */
    static PatchOperation container(String containerPath, Container container, String claim) {
        List<Object> claims = new ArrayList<>();
        if (container.getResources() != null && container.getResources().getClaims() != null) {
            for (ResourceClaim c : container.getResources().getClaims()) {
                claims.add(
                        c.getRequest() == null
                                ? Map.of("name", c.getName())
                                : ordered("name", c.getName(), "request", c.getRequest()));
            }
        }
        claims.add(Map.of("name", DraNames.claimTemplate(claim)));
        if (container.getResources() == null) {
            return PatchOperation.add(containerPath + "/resources", Map.of("claims", claims));
        }
        return PatchOperation.add(containerPath + "/resources/claims", claims);
    }

    /** The pod's {@code spec.resourceClaims}, with one made from each ElasticGPUClaim of {@code claims} added. */
    static PatchOperation pod(Pod pod, Set<String> claims) {
        List<Object> entries = new ArrayList<>();
        List<PodResourceClaim> own = pod.getSpec().getResourceClaims() == null
                ? List.of()
                : pod.getSpec().getResourceClaims();
        for (PodResourceClaim c : own) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", c.getName());
            if (c.getResourceClaimName() != null) {
                entry.put("resourceClaimName", c.getResourceClaimName());
            }
            if (c.getResourceClaimTemplateName() != null) {
                entry.put("resourceClaimTemplateName", c.getResourceClaimTemplateName());
            }
            entries.add(entry);
        }
        for (String claim : claims) {
            String name = DraNames.claimTemplate(claim);
            if (own.stream().noneMatch(c -> name.equals(c.getName()))) {
                entries.add(ordered("name", name, "resourceClaimTemplateName", name));
            }
        }
        return PatchOperation.add("/spec/resourceClaims", entries);
    }

    private static Map<String, Object> ordered(String k1, Object v1, String k2, Object v2) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(k1, v1);
        m.put(k2, v2);
        return m;
    }
}
