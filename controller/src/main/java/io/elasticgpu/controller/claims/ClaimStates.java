package io.elasticgpu.controller.claims;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The claim state machine, as a pure function of what exists:
 *
 * <ul>
 *   <li>{@code Pending}: no ElasticGPU is held for the claim (no pod using it has its cards yet, or its pod went);</li>
 *   <li>{@code Bound}: an ElasticGPU is held for it (the first by name when several pods use one claim);</li>
 *   <li>{@code Lost}: that ElasticGPU's card is reported unhealthy in its node's inventory, or the node has no
 *       such card any more.</li>
 * </ul>
 *
 * A holding whose claim uid differs from the claim's (the claim was deleted and made again) does not count.
 */
public final class ClaimStates {

    private ClaimStates() {}

    /**
     * @param inventories node name → its inventory; a node missing here is taken as healthy (no news is no loss)
     * @return every claim's state, sorted by claim
     */
    public static Map<ClaimKey, ClaimState> of(
            ClaimBook book, List<Holding> holdings, Map<String, NodeInventory> inventories) {
        Map<ClaimKey, ClaimState> states = new TreeMap<>();
        for (ElasticGPUClaim claim : book.claims()) {
            ClaimKey key = ClaimKey.of(claim);
            String uid = claim.getMetadata().getUid();
            Optional<Holding> held = holdings.stream()
                    .filter(h -> h.claim().equals(key)
                            && (h.claimUid() == null
                                    || uid == null
                                    || h.claimUid().equals(uid)))
                    .min(Comparator.comparing(Holding::elasticGpuName));
            states.put(
                    key,
                    held.map(h -> healthy(h, inventories)
                                    ? ClaimState.bound(h.elasticGpuName())
                                    : ClaimState.lost(h.elasticGpuName()))
                            .orElse(ClaimState.PENDING));
        }
        return states;
    }

    private static boolean healthy(Holding holding, Map<String, NodeInventory> inventories) {
        NodeInventory inventory = inventories.get(holding.node());
        if (inventory == null) {
            return true;
        }
        return inventory.cards().stream().anyMatch(c -> c.index() == holding.card() && c.healthy());
    }
}
