package io.elasticgpu.controller.claims;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimStatus.Phase;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec.BindingMode;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Static binding, as of a PersistentVolume to a claim: a {@code Pending} claim whose class says {@code Immediate} is
 * bound to a pre-created {@code Available} ElasticGPU that nobody claims and whose capacity covers every request
 * (the first such by name; each ElasticGPU to one claim). Claims asking {@code gpu-count} above 1 are left alone:
 * one ElasticGPU is one card. Pure.
 */
public final class StaticBinding {

    /** A pre-created ElasticGPU free to bind: its name and capacity (resource name → whole number). */
    public record Offer(String elasticGpuName, Map<String, Long> capacity) {
        public Offer {
            requireNonNull(elasticGpuName, "elasticGpuName");
            capacity = Map.copyOf(capacity);
        }
    }

    private StaticBinding() {}

    /** @return claim → the ElasticGPU to bind it to, sorted by claim */
    public static Map<ClaimKey, String> of(ClaimBook book, Map<ClaimKey, ClaimState> states, List<Offer> offers) {
        List<Offer> free = new ArrayList<>(offers.stream()
                .sorted(Comparator.comparing(Offer::elasticGpuName))
                .toList());
        Map<ClaimKey, String> binds = new TreeMap<>();
        for (ElasticGPUClaim claim : book.claims()) {
            ClaimKey key = ClaimKey.of(claim);
            ClaimState state = states.get(key);
            if (state == null || state.phase() != Phase.Pending || book.bindingMode(key) != BindingMode.Immediate) {
                continue;
            }
            Map<String, Long> requests = requests(claim);
            if (requests.isEmpty() || requests.getOrDefault(ResourceNames.GPU_COUNT, 1L) > 1) {
                continue;
            }
            free.stream()
                    .filter(o -> covers(o.capacity(), requests))
                    .findFirst()
                    .ifPresent(o -> {
                        binds.put(key, o.elasticGpuName());
                        free.remove(o);
                    });
        }
        return binds;
    }

    private static boolean covers(Map<String, Long> capacity, Map<String, Long> requests) {
        return requests.entrySet().stream()
                .filter(r -> !r.getKey().equals(ResourceNames.GPU_COUNT))
                .allMatch(r -> capacity.getOrDefault(r.getKey(), 0L) >= r.getValue());
    }

    private static Map<String, Long> requests(ElasticGPUClaim claim) {
        Map<String, Long> requests = new TreeMap<>();
        if (claim.getSpec() == null
                || claim.getSpec().getResources() == null
                || claim.getSpec().getResources().getRequests() == null) {
            return requests;
        }
        claim.getSpec().getResources().getRequests().forEach((k, v) -> requests.put(k, whole(v)));
        return requests;
    }

    /** A quantity as a whole number; the CRD admits only whole numbers ≥ 1. */
    public static long whole(Quantity quantity) {
        return quantity == null ? 0 : quantity.getNumericalAmount().longValue();
    }
}
