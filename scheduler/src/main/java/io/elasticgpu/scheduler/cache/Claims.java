package io.elasticgpu.scheduler.cache;

import io.elasticgpu.api.v1alpha1.DraShares;
import io.elasticgpu.core.model.Node;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * ResourceClaims by namespace/name: what DRA pods ask and, once allocated, what they hold. An allocated claim of
 * ours counts on its node under its own id ({@link #id}), beside the pods, so that cards granted through DRA and
 * through the device plugin are one ledger per card; a claim not (or no longer) allocated holds nothing.
 *
 * <p>Not thread-safe: only {@link ClusterCache} touches it, under its lock.
 */
final class Claims {

    private static final String PREFIX = "claim:";

    private final long memoryBlockMib;
    private final Map<String, ResourceClaim> byKey = new HashMap<>();
    /** What each allocated claim of ours holds on its node, by {@link #id}. */
    private final Map<String, PodHolding> observed = new HashMap<>();
    /** An immutable copy of {@link #byKey}, made when asked for after a change; null until then. */
    private Map<String, ResourceClaim> copy = Map.of();

    /** @param memoryBlockMib the node agents' memory block: a claim consuming all a card offers is the card alone */
    Claims(long memoryBlockMib) {
        this.memoryBlockMib = memoryBlockMib;
    }

    /** How a claim's holding is named beside the pods': never a pod's uid. */
    static String id(ResourceClaim claim) {
        return PREFIX + claim.getMetadata().getUid();
    }

    /**
     * Records {@code claim} as last seen.
     *
     * @param nodes a node's cards by name, or null when the node is not known yet
     * @return the uids of the pods an allocated claim is reserved for (their filter holds give their cards to it);
     *         empty for a claim not allocated
     */
    List<String> seen(ResourceClaim claim, Function<String, Node> nodes) {
        byKey.put(
                HostPod.key(
                        claim.getMetadata().getNamespace(), claim.getMetadata().getName()),
                claim);
        copy = null;
        List<DraShares.DraShare> shares = DraShares.of(claim);
        if (shares.isEmpty()) {
            observed.remove(id(claim));
            return List.of();
        }
        String node = shares.getFirst().node();
        observed.put(id(claim), PodHolding.ofClaim(node, shares, nodes.apply(node), memoryBlockMib));
        return reservedPods(claim);
    }

    /** Forgets {@code claim}; a claim of the same name made since (another uid) stays. */
    void deleted(ResourceClaim claim) {
        String uid = claim.getMetadata().getUid();
        byKey.computeIfPresent(
                HostPod.key(
                        claim.getMetadata().getNamespace(), claim.getMetadata().getName()),
                (k, known) -> uid.equals(known.getMetadata().getUid()) ? null : known);
        copy = null;
        observed.remove(id(claim));
    }

    /** What every allocated claim of ours holds, by {@link #id}. */
    Map<String, PodHolding> observed() {
        return Map.copyOf(observed);
    }

    /** What the claim of this {@link #id} holds on its node; null when it holds nothing. */
    PodHolding observed(String id) {
        return observed.get(id);
    }

    /** Every claim as last seen, by namespace/name: immutable. */
    Map<String, ResourceClaim> byKey() {
        if (copy == null) {
            copy = Map.copyOf(byKey);
        }
        return copy;
    }

    int count() {
        return byKey.size();
    }

    private static List<String> reservedPods(ResourceClaim claim) {
        List<ResourceClaimConsumerReference> refs =
                claim.getStatus() == null ? null : claim.getStatus().getReservedFor();
        return refs == null
                ? List.of()
                : refs.stream()
                        .filter(r -> "pods".equals(r.getResource()) && r.getUid() != null)
                        .map(ResourceClaimConsumerReference::getUid)
                        .toList();
    }
}
