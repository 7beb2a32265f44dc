package io.elasticgpu.api.v1alpha1;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.GpuAsk.Role;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a pod asks of our cards through Dynamic Resource PodGrant, in the same {@link GpuAsk}s as resource names
 * give: the one reading of ResourceClaim <em>requests</em> (what {@link DraShares} is for their allocation results),
 * so that the extender places a DRA pod with the same engine and the same accounting as a device-plugin pod.
 *
 * <p>A request is ours when its DeviceClass is {@value DraNames#DRIVER} or a per-model class
 * {@code <name>.gpu.elasticgpu.io}. It asks {@code count} distinct cards, each with its {@code memory} and
 * {@code cores} capacity, read as the node agent's request policy reads them (see its {@code SliceDevices}): memory
 * rounded up to the memory block, no memory meaning all of the card, no cores meaning no compute limit, 100 cores
 * the card's compute alone. A prioritized list ({@code firstAvailable}) is read by its first subrequest, the one the
 * allocator tries first. {@code allocationMode: All} is left to kube-scheduler's allocator: how many cards that is
 * depends on the node.
 */
public final class DraAsks {

    private static final BigDecimal MIB = BigDecimal.valueOf(1024L * 1024);

    /** One claim of a pod: the pod's name for it and the ResourceClaim's name (null until it is generated). */
    public record PodClaim(String podClaimName, String claimName) {}

    /**
     * The annotation kube-scheduler puts ({@code "true"}) on the claim it makes for a pod asking an extended resource
     * of a DeviceClass (KEP-5004; {@code resource.k8s.io/v1}'s {@code ExtendedResourceClaimAnnotation}).
     */
    public static final String EXTENDED_RESOURCE_CLAIM = "resource.kubernetes.io/extended-resource-claim";

    private DraAsks() {}

    /**
     * True for a claim kube-scheduler made for a pod's extended resource: that pod asks the cards by resource name
     * and is counted as a GPU pod, so the claim stands for no ask of its own.
     */
    public static boolean madeForExtendedResource(ResourceClaim claim) {
        var annotations =
                claim.getMetadata() == null ? null : claim.getMetadata().getAnnotations();
        return annotations != null && "true".equals(annotations.get(EXTENDED_RESOURCE_CLAIM));
    }

    /** True for the DeviceClasses that select our cards. */
    public static boolean ours(String deviceClassName) {
        return deviceClassName != null
                && (deviceClassName.equals(DraNames.DRIVER) || deviceClassName.endsWith("." + DraNames.DRIVER));
    }

    /**
     * The ResourceClaims the pod uses, in its spec's order: named ones as they are, template ones by the name
     * kube-controller-manager generated (from the pod's status; null until then).
     */
    public static List<PodClaim> claims(Pod pod) {
        if (pod.getSpec() == null || pod.getSpec().getResourceClaims() == null) {
            return List.of();
        }
        List<PodResourceClaimStatus> statuses =
                pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null
                        ? List.of()
                        : pod.getStatus().getResourceClaimStatuses();
        List<PodClaim> out = new ArrayList<>();
        for (PodResourceClaim c : pod.getSpec().getResourceClaims()) {
            String name = c.getResourceClaimName();
            if (name == null) {
                name = statuses.stream()
                        .filter(s -> c.getName().equals(s.getName()))
                        .findFirst()
                        .map(PodResourceClaimStatus::getResourceClaimName)
                        .orElse(null);
            }
            out.add(new PodClaim(c.getName(), name));
        }
        return out;
    }

    /**
     * The cards {@code claim} asks of ours, one ask per request (named {@code claim/<claim>/<request>}); empty when
     * it asks none of ours, or when it is allocated already (what it holds then counts through {@link DraShares}).
     *
     * @param memoryBlockMib the memory block the node agents publish (their request policy's step)
     * @throws InvalidAskException when a request of ours asks {@code allocationMode: All}, which the
     *                                    extender leaves to kube-scheduler's allocator
     */
    public static List<GpuAsk> of(ResourceClaim claim, long memoryBlockMib) {
        return DraShares.allocated(claim) ? List.of() : requested(claim, memoryBlockMib);
    }

    /** What {@code claim} asks of ours, allocated or not: for the workload the fragmentation-aware policies expect. */
    public static List<GpuAsk> requested(ResourceClaim claim, long memoryBlockMib) {
        if (claim.getSpec() == null
                || claim.getSpec().getDevices() == null
                || claim.getSpec().getDevices().getRequests() == null) {
            return List.of();
        }
        String claimName =
                claim.getMetadata() == null ? "" : claim.getMetadata().getName();
        List<GpuAsk> asks = new ArrayList<>();
        for (DeviceRequest r : claim.getSpec().getDevices().getRequests()) {
            first(r).filter(e -> ours(e.className()))
                    .ifPresent(e -> asks.add(ask("claim/" + claimName + "/" + r.getName(), e, memoryBlockMib)));
        }
        return asks;
    }

    /** The fields of an exact request or of a prioritized list's first subrequest. */
    private record Exact(String className, String mode, Long count, Map<String, Quantity> capacity) {}

    private static Optional<Exact> first(DeviceRequest r) {
        ExactDeviceRequest e = r.getExactly();
        if (e != null) {
            return Optional.of(new Exact(
                    e.getDeviceClassName(),
                    e.getAllocationMode(),
                    e.getCount(),
                    e.getCapacity() == null ? null : e.getCapacity().getRequests()));
        }
        if (r.getFirstAvailable() == null || r.getFirstAvailable().isEmpty()) {
            return Optional.empty();
        }
        DeviceSubRequest s = r.getFirstAvailable().getFirst();
        return Optional.of(new Exact(
                s.getDeviceClassName(),
                s.getAllocationMode(),
                s.getCount(),
                s.getCapacity() == null ? null : s.getCapacity().getRequests()));
    }

    private static GpuAsk ask(String name, Exact e, long blockMib) {
        if ("All".equals(e.mode())) {
            throw new InvalidAskException(("%s asks allocationMode: All; how many cards that is depends on the node,"
                            + " so kube-scheduler's allocator places it alone (ask allocationMode: ExactCount with a "
                            + "count)")
                    .formatted(name));
        }
        int cards = e.count() == null ? 1 : (int) Math.max(1, Math.min(Integer.MAX_VALUE, e.count()));
        Map<String, Quantity> capacity = e.capacity() == null ? Map.of() : e.capacity();
        long memoryMib = capacity.containsKey(DraNames.MEMORY)
                ? roundUp(
                        Quantity.getAmountInBytes(capacity.get(DraNames.MEMORY))
                                .divide(MIB, 0, RoundingMode.CEILING)
                                .longValueExact(),
                        blockMib)
                : 0;
        int percent = capacity.containsKey(DraNames.CORES)
                ? Quantity.getAmountInBytes(capacity.get(DraNames.CORES))
                        .setScale(0, RoundingMode.CEILING)
                        .intValueExact()
                : 0;
        if (memoryMib == 0 || percent >= 100) { // all of the card's memory, or all of its compute: the card alone
            return GpuAsk.whole(name, Role.APP, cards, Family.DRA);
        }
        return GpuAsk.slice(name, Role.APP, cards, Math.max(0, percent) * 10, memoryMib, Family.DRA);
    }

    /**
     * The request of ours that asks what {@code ask} asks, named {@code gpu}: its inverse, so that
     * {@link #of} reads it back as the same cards and share. Whole cards name no capacity (the card's request policy
     * then gives all of it); a slice names its memory and, when it has one, its compute in percent.
     *
     * @throws InvalidAskException for a slice without memory: a claim naming none takes all of the card's
     */
    public static DeviceRequest request(GpuAsk ask) {
        var exactly = new DeviceRequestBuilder()
                .withName("gpu")
                .withNewExactly()
                .withDeviceClassName(DraNames.DRIVER)
                .withAllocationMode("ExactCount")
                .withCount((long) ask.cards());
        if (!ask.whole()) {
            if (ask.memoryPercent() > 0) {
                throw new InvalidAskException(("%s asks %d %% of a card's memory; through DRA memory is asked in"
                                + " bytes: ask it in MiB (nvidia.com/gpumem or elasticgpu.io/gpu-memory)")
                        .formatted(ask.container(), ask.memoryPercent()));
            }
            if (ask.memoryMib() == 0) {
                throw new InvalidAskException(("%s asks compute alone (%d %% of a card); through DRA a share must"
                                + " name its memory too (elasticgpu.io/gpu-memory), or ask whole cards")
                        .formatted(ask.container(), ask.milli() / 10));
            }
            var capacity =
                    exactly.withNewCapacity().addToRequests(DraNames.MEMORY, new Quantity(ask.memoryMib() + "Mi"));
            if (ask.milli() > 0) {
                capacity.addToRequests(DraNames.CORES, new Quantity(Integer.toString((ask.milli() + 9) / 10)));
            }
            exactly = capacity.endCapacity();
        }
        return exactly.endExactly().build();
    }

    private static long roundUp(long mib, long blockMib) {
        return Math.max(blockMib, (mib + blockMib - 1) / blockMib * blockMib);
    }
}
