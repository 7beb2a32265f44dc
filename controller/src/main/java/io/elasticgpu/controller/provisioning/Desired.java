package io.elasticgpu.controller.provisioning;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.CardHolding;
import io.elasticgpu.api.v1alpha1.ClaimAnnotations;
import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.DraShares;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec.ReclaimPolicy;
import io.elasticgpu.api.v1alpha1.ElasticGPUStatus.Phase;
import io.elasticgpu.api.v1alpha1.GpuAsk;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.controller.claims.ClaimBook;
import io.elasticgpu.controller.claims.ClaimKey;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The ElasticGPUs that should exist, as a pure function of pods, claims and the managed ElasticGPUs that exist:
 *
 * <ul>
 *   <li>one per (pod, container, card) of every live pod with a readable {@code elasticgpu.io/allocation} (the same
 *       pods {@code egpu inspect} counts: not finished, not being deleted, allocation on the node it is bound to),
 *       phase {@code Bound}; {@code physical} for containers that ask whole cards, else {@code gpuShare};</li>
 *   <li>with a {@code claimRef} when the pod names an existing claim for that container;</li>
 * <li>one per (ResourceClaim, card) of every DRA claim kube-scheduler allocated on our cards, phase {@code Bound};</li>
 *   <li>plus, once their pod is gone, the ones bound to a claim whose class says {@code Retain}: kept, phase
 *       {@code Released}, claimRef kept. Released ones stay until a person deletes them.</li>
 * </ul>
 */
public final class Desired {

    private Desired() {}

    /** Without claims: every allocation, nothing retained. */
    public static SortedMap<String, DesiredGpu> of(Collection<Pod> pods) {
        return of(pods, ClaimBook.EMPTY, List.of());
    }

    /**
     * @param existing the managed ElasticGPUs as read from the API ({@link DesiredGpu#from}); only the ones to retain
     *                 are taken from it
     * @return by name
     */
    public static SortedMap<String, DesiredGpu> of(
            Collection<Pod> pods, ClaimBook book, Collection<DesiredGpu> existing) {
        return of(pods, List.of(), Map.of(), book, existing);
    }

    /**
     * The same, with the cards DRA claims hold: one per (claim, card) of every allocated ResourceClaim of our driver
     * on a node whose inventory names that card.
     *
     * @param inventories each GPU node's inventory, by node name (the uuid of each card)
     */
    public static SortedMap<String, DesiredGpu> of(
            Collection<Pod> pods,
            Collection<ResourceClaim> draClaims,
            Map<String, NodeInventory> inventories,
            ClaimBook book,
            Collection<DesiredGpu> existing) {
        SortedMap<String, DesiredGpu> desired = new TreeMap<>();
        for (Pod pod : pods) {
            forPod(pod, book).forEach(g -> desired.putIfAbsent(g.name(), g));
        }
        Map<String, Consumer> consumers = consumers(pods);
        for (ResourceClaim claim : draClaims) {
            Consumer consumer = consumers.get(claim.getMetadata().getNamespace() + "/"
                    + claim.getMetadata().getName());
            forDraClaim(claim, inventories, consumer, book).forEach(g -> desired.putIfAbsent(g.name(), g));
        }
        for (DesiredGpu gpu : existing) {
            if (desired.containsKey(gpu.name())) {
                continue;
            }
            if (gpu.phase() == Phase.Released) {
                desired.put(gpu.name(), gpu);
            } else if (gpu.claimRef() != null
                    && book.reclaimPolicy(gpu.claimRef().key()) == ReclaimPolicy.Retain) {
                desired.put(gpu.name(), gpu.withPhase(Phase.Released));
            }
        }
        return desired;
    }

    /** The ElasticGPUs one pod's allocation stands for; none when it holds nothing or its annotation is unreadable. */
    static List<DesiredGpu> forPod(Pod pod, ClaimBook book) {
        if (!CardHolding.holdsCards(pod)) {
            return List.of();
        }
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String json = annotations == null ? null : annotations.get(Annotations.ALLOCATION);
        if (json == null) {
            return List.of();
        }
        PodGrant allocation;
        try {
            allocation = PodGrant.fromJson(json);
        } catch (IllegalArgumentException e) {
            return List.of();
        }
        String boundTo = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        if (boundTo != null && !boundTo.isEmpty() && !boundTo.equals(allocation.node())) {
            return List.of();
        }
        String ns = pod.getMetadata().getNamespace();
        String uid = pod.getMetadata().getUid();
        Map<String, Boolean> whole = wholeByContainer(pod);
        Map<String, String> claims = ClaimAnnotations.of(pod);
        List<DesiredGpu> gpus = new java.util.ArrayList<>();
        allocation.containers().forEach((container, shares) -> {
            boolean wholeCards = whole.getOrDefault(container, false);
            DesiredGpu.ClaimRef claimRef = claimRef(ns, claims.get(container), book);
            for (PodGrant.Share share : shares) {
                gpus.add(new DesiredGpu(
                        ElasticGPUNames.of(allocation.node(), share.card(), uid, container),
                        uid,
                        allocation.node(),
                        share.card(),
                        share.uuid(),
                        wholeCards ? DesiredGpu.Source.PHYSICAL : DesiredGpu.Source.GPU_SHARE,
                        capacity(share, wholeCards),
                        new DesiredGpu.PodRef(ns, pod.getMetadata().getName(), container),
                        claimRef,
                        Phase.Bound));
            }
        });
        return gpus;
    }

    /**
     * The ElasticGPUs one DRA claim's allocation stands for (read by {@link DraShares}, as the node agent prepares it
     * and the views count it): held by the claim (the first pod it is reserved for, with {@code claim/<name>} as the
     * container; no pod reference before one is reserved), {@code physical} for a whole card, else {@code gpuShare}
     * with what it consumed.
     * None for a device that is not a card of the node's inventory (the views report that as a problem).
     */
    static List<DesiredGpu> forDraClaim(ResourceClaim claim, Map<String, NodeInventory> inventories) {
        return forDraClaim(claim, inventories, null, ClaimBook.EMPTY);
    }

    /**
     * A pod that uses a DRA claim on behalf of an ElasticGPUClaim-naming container, and which container each of the
     * claim's requests is for.
     */
    record Consumer(Pod pod, Function<String, String> containerOf) {}

    /**
     * The DRA claims that stand for pods' containers, by {@code namespace/claim}: the claim kube-scheduler made for a
     * pod asking our extended resource (KEP-5004; its {@code status.extendedResourceClaimStatus} maps each request to
     * a container), and the claim made from the template {@code egpuc-<claim>} of an ElasticGPUClaim of a DRA class
     * (its {@code status.resourceClaimStatuses} names it; the container is the one whose annotation names the claim).
     */
    private static Map<String, Consumer> consumers(Collection<Pod> pods) {
        Map<String, Consumer> byClaim = new HashMap<>();
        for (Pod pod : pods) {
            String ns = pod.getMetadata().getNamespace();
            var status = pod.getStatus() == null ? null : pod.getStatus().getExtendedResourceClaimStatus();
            if (status != null && status.getResourceClaimName() != null) {
                byClaim.put(
                        ns + "/" + status.getResourceClaimName(),
                        new Consumer(pod, request -> requester(pod, request)));
            }
            if (pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null) {
                continue;
            }
            ClaimAnnotations.of(pod)
                    .forEach((container, claim) -> pod.getStatus().getResourceClaimStatuses().stream()
                            .filter(c -> DraNames.claimTemplate(claim).equals(c.getName())
                                    && c.getResourceClaimName() != null)
                            .findFirst()
                            .ifPresent(c -> byClaim.put(
                                    ns + "/" + c.getResourceClaimName(), new Consumer(pod, request -> container))));
        }
        return byClaim;
    }

    /**
     * As {@link #forDraClaim(ResourceClaim, Map)}; for a claim that stands for a pod's container ({@code consumer}),
     * each card's ElasticGPU names that container and the ElasticGPUClaim the container names (its
     * {@code elasticgpu.io/egpuc-<container>} annotation): so ElasticGPUClaims are bound on DRA nodes.
     */
    static List<DesiredGpu> forDraClaim(
            ResourceClaim claim, Map<String, NodeInventory> inventories, Consumer consumer, ClaimBook book) {
        String ns = claim.getMetadata().getNamespace();
        String name = claim.getMetadata().getName();
        String uid = claim.getMetadata().getUid();
        String pod = claim.getStatus() == null || claim.getStatus().getReservedFor() == null
                ? null
                : claim.getStatus().getReservedFor().stream()
                        .filter(r -> "pods".equals(r.getResource()))
                        .map(ResourceClaimConsumerReference::getName)
                        .findFirst()
                        .orElse(null);
        List<DesiredGpu> gpus = new java.util.ArrayList<>();
        for (DraShares.DraShare share : DraShares.of(claim)) {
            NodeInventory inventory = inventories.get(share.node());
            if (inventory == null
                    || share.card() < 0
                    || share.card() >= inventory.cards().size()) {
                continue;
            }
            String requester = consumer == null ? null : consumer.containerOf().apply(share.request());
            String container = requester != null ? requester : "claim/" + name;
            String holder = requester != null ? consumer.pod().getMetadata().getName() : pod;
            DesiredGpu.ClaimRef claimRef = requester == null
                    ? null
                    : claimRef(ns, ClaimAnnotations.of(consumer.pod()).get(requester), book);
            PodGrant.Share asShare = new PodGrant.Share(
                    share.card(), inventory.cards().get(share.card()).uuid(), share.milli(), share.memoryMib());
            // The name carries the claim's uid; the pod-uid label is left off: a claim is not a pod.
            gpus.add(new DesiredGpu(
                    ElasticGPUNames.of(share.node(), share.card(), uid, container),
                    null,
                    share.node(),
                    share.card(),
                    asShare.uuid(),
                    share.wholeCard() ? DesiredGpu.Source.PHYSICAL : DesiredGpu.Source.GPU_SHARE,
                    capacity(asShare, share.wholeCard()),
                    holder == null ? null : new DesiredGpu.PodRef(ns, holder, container),
                    claimRef,
                    Phase.Bound));
        }
        return gpus;
    }

    /** The container of {@code pod} that the request {@code request} of its extended-resource claim was made for. */
    private static String requester(Pod pod, String request) {
        return pod.getStatus().getExtendedResourceClaimStatus().getRequestMappings().stream()
                .filter(m -> request.equals(m.getRequestName()))
                .map(m -> m.getContainerName())
                .findFirst()
                .orElse(null);
    }

    /**
     * A whole card: {@code elasticgpu.io/gpu: 1}. A slice: {@code gpu-memory} in MiB and {@code gpu-core} in percent
     * (milli / 10, rounded half up: 305 milli → 31), each only when above 0 (the CRD wants whole numbers ≥ 1).
     */
    static Map<String, String> capacity(PodGrant.Share share, boolean wholeCard) {
        Map<String, String> capacity = new TreeMap<>();
        if (wholeCard) {
            capacity.put(ResourceNames.GPU, "1");
            return capacity;
        }
        if (share.memoryMib() > 0) {
            capacity.put(ResourceNames.GPU_MEMORY, Long.toString(share.memoryMib()));
        }
        int percent = (share.milli() + 5) / 10;
        if (percent > 0) {
            capacity.put(ResourceNames.GPU_CORE, Integer.toString(percent));
        }
        return capacity;
    }

    private static DesiredGpu.ClaimRef claimRef(String ns, String claimName, ClaimBook book) {
        if (claimName == null) {
            return null;
        }
        Optional<ElasticGPUClaim> claim = book.claim(new ClaimKey(ns, claimName));
        return claim.map(c ->
                        new DesiredGpu.ClaimRef(ns, claimName, c.getMetadata().getUid()))
                .orElse(null);
    }

    /** Which containers ask whole cards; a pod whose asks cannot be read counts as slices. */
    private static Map<String, Boolean> wholeByContainer(Pod pod) {
        Map<String, Boolean> whole = new HashMap<>();
        try {
            for (GpuAsk ask : PodAsks.of(pod, PodAsks.Units.DEFAULT)) {
                whole.put(ask.container(), ask.whole());
            }
        } catch (RuntimeException e) {
            // An ask the extender would refuse; the allocation is still the truth about which cards are held.
        }
        return whole;
    }
}
