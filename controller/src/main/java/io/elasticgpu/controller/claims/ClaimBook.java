package io.elasticgpu.controller.claims;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec.BindingMode;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec.ReclaimPolicy;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The claims and classes that exist, as one snapshot to look things up in. Immutable. */
public final class ClaimBook {

    /** No claims, no classes. */
    public static final ClaimBook EMPTY = new ClaimBook(List.of(), List.of());

    private final Map<ClaimKey, ElasticGPUClaim> claims = new TreeMap<>();
    private final Map<String, ElasticGPUClass> classes = new TreeMap<>();

    public ClaimBook(Collection<ElasticGPUClaim> claims, Collection<ElasticGPUClass> classes) {
        claims.forEach(c -> this.claims.put(ClaimKey.of(c), c));
        classes.forEach(c -> this.classes.put(c.getMetadata().getName(), c));
    }

    public Optional<ElasticGPUClaim> claim(ClaimKey key) {
        return Optional.ofNullable(claims.get(key));
    }

    /** Every claim, sorted by namespace and name. */
    public Collection<ElasticGPUClaim> claims() {
        return claims.values();
    }

    /** When a claim is bound: its class's mode; {@code WaitForFirstConsumer} (the CRD's default) when unknown. */
    public BindingMode bindingMode(ClaimKey key) {
        ElasticGPUClaim claim = claims.get(key);
        if (claim == null || claim.getSpec() == null) {
            return BindingMode.WaitForFirstConsumer;
        }
        ElasticGPUClass gpuClass = classes.get(claim.getSpec().getElasticGPUClassName());
        if (gpuClass == null || gpuClass.getSpec() == null || gpuClass.getSpec().getBindingMode() == null) {
            return BindingMode.WaitForFirstConsumer;
        }
        return gpuClass.getSpec().getBindingMode();
    }

    /**
     * What to do with a claim's ElasticGPU when its pod goes: the claim's class's policy; {@code Delete} (the
     * default of the CRD) when the claim, its class or the policy is missing.
     */
    public ReclaimPolicy reclaimPolicy(ClaimKey key) {
        ElasticGPUClaim claim = claims.get(key);
        if (claim == null || claim.getSpec() == null) {
            return ReclaimPolicy.Delete;
        }
        ElasticGPUClass gpuClass = classes.get(claim.getSpec().getElasticGPUClassName());
        if (gpuClass == null || gpuClass.getSpec() == null || gpuClass.getSpec().getReclaimPolicy() == null) {
            return ReclaimPolicy.Delete;
        }
        return gpuClass.getSpec().getReclaimPolicy();
    }
}
