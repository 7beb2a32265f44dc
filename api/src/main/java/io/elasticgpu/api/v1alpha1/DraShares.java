package io.elasticgpu.api.v1alpha1;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a ResourceClaim holds of our cards: the one reading of DRA allocation results that the node agent (to
 * prepare a claim) and the views (to count who holds a card) share. Only results of driver {@value DraNames#DRIVER}
 * count; our pools are named after their node, so a result's pool is its node.
 */
public final class DraShares {

    private static final BigDecimal MIB = BigDecimal.valueOf(1024L * 1024);

    /**
     * One device of ours allocated to a claim.
     *
     * @param node      the pool, which is the node's name
     * @param card      the card index, or -1 when the device name is not one of ours ({@code gpu-<index>})
     * @param wholeCard no consumed capacity was recorded (a device that allows one allocation): the claim holds the
     *                  whole card, and {@code memoryMib}/{@code milli} are 0 and 1000
     * @param memoryMib memory consumed, rounded up to whole MiB
     * @param milli     compute consumed in thousandths of the card (0: no compute limit asked)
     * @param shareId   the allocator's share id, or null for a device that allows one allocation
     */
    public record DraShare(
            String node,
            int card,
            String device,
            String request,
            boolean wholeCard,
            long memoryMib,
            int milli,
            String shareId) {
        public DraShare {
            requireNonNull(node, "node");
            requireNonNull(device, "device");
            requireNonNull(request, "request");
        }
    }

    private DraShares() {}

    /** True when the claim is allocated (kube-scheduler wrote its devices); only then does it hold anything. */
    public static boolean allocated(ResourceClaim claim) {
        return claim.getStatus() != null
                && claim.getStatus().getAllocation() != null
                && claim.getStatus().getAllocation().getDevices() != null
                && claim.getStatus().getAllocation().getDevices().getResults() != null;
    }

    /** The devices of ours {@code claim} holds, in the allocation's order; empty when it is not allocated. */
    public static List<DraShare> of(ResourceClaim claim) {
        if (!allocated(claim)) {
            return List.of();
        }
        List<DraShare> out = new ArrayList<>();
        for (DeviceRequestAllocationResult r :
                claim.getStatus().getAllocation().getDevices().getResults()) {
            if (DraNames.DRIVER.equals(r.getDriver()) && r.getPool() != null && r.getDevice() != null) {
                out.add(share(r));
            }
        }
        return out;
    }

    /** Consumed capacity in our units: memory rounded up to MiB, cores (percent) rounded up, in milli. */
    static DraShare share(DeviceRequestAllocationResult r) {
        int card = DraNames.cardIndex(r.getDevice());
        String request = r.getRequest() == null ? "" : r.getRequest();
        Map<String, Quantity> consumed = r.getConsumedCapacity();
        if (consumed == null || consumed.isEmpty()) {
            return new DraShare(r.getPool(), card, r.getDevice(), request, true, 0, 1000, r.getShareID());
        }
        long memoryMib = consumed.containsKey(DraNames.MEMORY)
                ? Quantity.getAmountInBytes(consumed.get(DraNames.MEMORY))
                        .divide(MIB, 0, RoundingMode.CEILING)
                        .longValueExact()
                : 0;
        int percent = consumed.containsKey(DraNames.CORES)
                ? Quantity.getAmountInBytes(consumed.get(DraNames.CORES))
                        .setScale(0, RoundingMode.CEILING)
                        .intValueExact()
                : 0;
        return new DraShare(r.getPool(), card, r.getDevice(), request, false, memoryMib, percent * 10, r.getShareID());
    }
}
