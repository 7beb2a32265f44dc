package io.elasticgpu.api.v1alpha1;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.TreeMap;

/** The claims a pod names, one per container, in annotations {@code elasticgpu.io/egpuc-<container>: <claim>}. */
public final class ClaimAnnotations {

    /** The annotation key's prefix; the container's name follows it. */
    public static final String PREFIX = "elasticgpu.io/egpuc-";

    private ClaimAnnotations() {}

    /** The annotation key naming the claim of {@code container}. */
    public static String key(String container) {
        return PREFIX + container;
    }

    /** Container name → claim name (in the pod's namespace), sorted by container; empty when it names none. */
    public static Map<String, String> of(Pod pod) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        Map<String, String> claims = new TreeMap<>();
        if (annotations == null) {
            return claims;
        }
        annotations.forEach((key, value) -> {
            if (key.startsWith(PREFIX) && key.length() > PREFIX.length() && value != null && !value.isBlank()) {
                claims.put(key.substring(PREFIX.length()), value.trim());
            }
        });
        return claims;
    }
}
