package io.elasticgpu.node.dra;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Claims as the API would answer, by UID; counts the reads. */
final class FakeClaims implements ClaimSource {

    final Map<String, List<ClaimDevice>> byUid = new HashMap<>();
    int reads;
    /** What {@link #held} answers: the claims pods on the node hold, as the API would list them. */
    final List<ClaimRef> held = new java.util.ArrayList<>();

    FakeClaims with(String uid, ClaimDevice... devices) {
        byUid.put(uid, List.of(devices));
        return this;
    }

    @Override
    public synchronized AllocatedClaim allocated(ClaimRef claim) {
        reads++;
        List<ClaimDevice> d = byUid.get(claim.uid());
        if (d == null) {
            throw new ClaimException("claim %s: not found".formatted(claim));
        }
        return AllocatedClaim.of(d);
    }

    @Override
    public synchronized List<ClaimRef> held() {
        return List.copyOf(held);
    }

    static ClaimDevice share(String request, int card, long memoryMib, int percent) {
        return new ClaimDevice(
                request, "gpu-" + card, card, memoryMib, percent * 10, java.util.Optional.of("share-" + card));
    }
}
